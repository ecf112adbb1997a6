// A sender instance's answered calls: kept from the moment their response
// time is known until the thread sees the response (responses are not
// events), and the wake for the one the thread waits for.
#include <stdexcept>

#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

void SenderInstance::on_response_time(const Rpc& rpc, SimTime back, const CallParts& parts) {
  if (counts_connection_calls_) note_response_due(rpc.to_host, back);
  keep_answered(rpc, back, parts);
  if (!rpc.eos) {
    ExchangeStats& stats = run_.stats();
    stats.network_ns += parts.network_time();
    stats.receiver_ns += parts.receiver_time();
  }
  --unknown_;
  if (blocked_channel_ == rpc.channel || waiting_all_) schedule_wake();
}

void SenderInstance::note_response_due(int host, SimTime back) {
  --calls_to_host_[static_cast<std::size_t>(host)];
  RingQueue<SimTime>& due = responses_due_[static_cast<std::size_t>(host)];
  if (!due.empty() && back < due.at(due.size() - 1)) {
    throw std::logic_error("internal error: a response due before one answered earlier on its connection");
  }
  due.push(back);
}

void SenderInstance::keep_answered(const Rpc& rpc, SimTime back, const CallParts& parts) {
  if (rpc.channel < final_from_) {
    FinalAnswers& last = final_answers_;
    ++last.count;
    if (back > last.back || (back == last.back && rpc.channel < last.channel)) {
      last.channel = rpc.channel;
      last.back = back;
      last.parts = parts;
    }
    return;
  }
  int slot = free_answered_;
  if (slot >= 0) {
    free_answered_ = answered_[static_cast<std::size_t>(slot)].next;
  } else {
    slot = static_cast<int>(answered_.size());
    answered_.emplace_back();
    if (context_.trace) answered_spans_.emplace_back();
  }
  answered_[static_cast<std::size_t>(slot)] = {back, parts, -1};
  if (context_.trace) answered_spans_[static_cast<std::size_t>(slot)] = {rpc.issued, rpc.rows, rpc.wire_bytes};
  int* end = &channels_[static_cast<std::size_t>(rpc.channel)].answered;
  while (*end >= 0) end = &answered_[static_cast<std::size_t>(*end)].next;  // at most in_flight long
  *end = slot;
  ++listed_;
  listing_[static_cast<std::size_t>(rpc.channel) >> 6] |= std::uint64_t{1} << (rpc.channel & 63);
}

void SenderInstance::retire_all() {
  for_each_listed([&](int c) { retire(c); });
  FinalAnswers& last = final_answers_;
  // Once every call's answer is known and back, none is in flight.
  if (last.count == 0 || unknown_ > 0 || listed_ > 0 || last.back > context_.simulator.now()) return;
  window_.close_all();
  last = {};
}

// A channel's list keeps the order of a vector whose entry, when removed,
// takes the last one in its place: the order in which answers at the same
// moment are retired and waited for.
void SenderInstance::retire(int channel) {
  std::uint64_t& word = listing_[static_cast<std::size_t>(channel) >> 6];
  const std::uint64_t bit = std::uint64_t{1} << (channel & 63);
  if ((word & bit) == 0) return;
  const auto at = [&](int slot) -> Answered& { return answered_[static_cast<std::size_t>(slot)]; };
  const SimTime now = context_.simulator.now();
  int& head = channels_[static_cast<std::size_t>(channel)].answered;
  for (int* link = &head; *link >= 0;) {
    const int slot = *link;
    Answered& a = at(slot);
    if (a.back > now) {
      link = &a.next;
      continue;
    }
    // The list's last takes its place (itself, if it is the last).
    int* to_last = link;
    while (at(*to_last).next >= 0) to_last = &at(*to_last).next;
    const int last = *to_last;
    *to_last = -1;
    if (last != slot) {
      at(last).next = a.next;
      *link = last;
    }
    --listed_;
    a.next = free_answered_;
    free_answered_ = slot;
    window_.close_call(channel);
    if (context_.trace) {
      const AnsweredSpan& span = answered_spans_[static_cast<std::size_t>(slot)];
      context_.trace->span(context_.trace_pid(host_), channel_track(channel), "rpc in flight", span.issued, a.back,
                           span.rows, span.wire);
    }
  }
  if (head < 0) word &= ~bit;
}

void SenderInstance::schedule_wake() {
  if (wake_at_ >= 0) return;  // a wake is coming: responses known later are due later
  SimTime when = -1;
  const auto wait_for = [&](const Answered& a) {
    when = a.back;
    wake_parts_ = a.parts;
  };
  // Among answers back at the same moment, the first in its channel's list,
  // and in the lowest channel, is waited for.
  if (blocked_channel_ >= 0) {
    for (int slot = channels_[static_cast<std::size_t>(blocked_channel_)].answered; slot >= 0;) {
      const Answered& a = answered_[static_cast<std::size_t>(slot)];
      if (when < 0 || a.back < when) wait_for(a);
      slot = a.next;
    }
  } else if (waiting_all_ && unknown_ == 0) {
    int channel = -1;  // of the latest
    for_each_listed([&](int c) {
      for (int slot = channels_[static_cast<std::size_t>(c)].answered; slot >= 0;) {
        const Answered& a = answered_[static_cast<std::size_t>(slot)];
        if (a.back > when) {
          wait_for(a);
          channel = c;
        }
        slot = a.next;
      }
    });
    const FinalAnswers& last = final_answers_;
    if (last.count > 0 && (last.back > when || (last.back == when && last.channel < channel))) {
      when = last.back;
      wake_parts_ = last.parts;
    }
  }
  if (when < 0) return;  // waits for the receiver to answer
  // The thread runs again a wake-up after the response (CostRates::sender_wake).
  wake_for_ = when;
  wake_at_ = std::max(when + context_.rates.sender_wake, context_.simulator.now());
  context_.simulator.at(wake_at_, this, kWake);
}

}  // namespace exsim::sim
