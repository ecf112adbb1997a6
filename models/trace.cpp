#include "models/trace.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace exsim {

int Trace::track(int pid, const std::string& process, const std::string& name) {
  processes_.emplace(pid, process);
  const int tid = ++next_tid_[pid];
  threads_[{pid, tid}] = name;
  return tid;
}

void Trace::span(int pid, int tid, const char* name, std::int64_t start_ns, std::int64_t end_ns, std::int64_t rows,
                 std::int64_t bytes) {
  const std::uint64_t seq = next_seq_++;
  if ((seq & ((std::uint64_t{1} << shift_) - 1)) != 0) return;
  events_.push_back({seq, start_ns, std::max<std::int64_t>(0, end_ns - start_ns), rows, bytes, name, pid, tid});
  if (events_.size() > max_events_) {
    ++shift_;
    const std::uint64_t mask = (std::uint64_t{1} << shift_) - 1;
    events_.erase(std::remove_if(events_.begin(), events_.end(), [&](const Event& e) { return (e.seq & mask) != 0; }),
                  events_.end());
  }
}

std::string Trace::to_json(const std::string& source) const {
  using json = nlohmann::ordered_json;
  json events = json::array();
  for (const auto& [pid, name] : processes_) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
  }
  for (const auto& [key, name] : threads_) {
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", key.first}, {"tid", key.second}, {"args", {{"name", name}}}});
    events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", key.first}, {"tid", key.second},
                      {"args", {{"sort_index", key.second}}}});
  }
  for (const auto& e : events_) {
    json event = {{"ph", "X"}, {"name", e.name}, {"cat", "exchange"}, {"pid", e.pid}, {"tid", e.tid},
                  {"ts", static_cast<double>(e.start) / 1000.0}, {"dur", static_cast<double>(e.dur) / 1000.0}};
    if (e.rows >= 0 || e.bytes >= 0) {
      event["args"] = json::object();
      if (e.rows >= 0) event["args"]["rows"] = e.rows;
      if (e.bytes >= 0) event["args"]["bytes"] = e.bytes;
    }
    events.push_back(std::move(event));
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"source", source},
                             {"spans_offered", next_seq_},
                             {"spans_kept", events_.size()},
                             {"sampling", fmt::format("1 in {}", std::uint64_t{1} << shift_)}}}};
  return doc.dump() + "\n";
}

}  // namespace exsim
