@0xc2ed7b4afdbaa069;
# The peer benchmark's one call: a message of opaque bytes, answered with its length.
interface Sink {
  send @0 (data :Data) -> (received :UInt64);
}
