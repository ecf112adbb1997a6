// The peer benchmark's one call: a message of opaque bytes, answered with its length.
namespace cpp peers
service Sink {
  i64 send(1: binary data)
}
