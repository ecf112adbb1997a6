#include "models/results/trace.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

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

void Trace::absorb(const std::string& trace_json, int pid, const std::string& process, std::int64_t offset_ns) {
  static const char* const kNames[] = {"serialize", "compress", "send", "blocked", "rpc in flight", "deferred"};
  const auto doc = nlohmann::json::parse(trace_json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    throw std::runtime_error("a trace to absorb is not in the trace event format");
  }
  processes_.emplace(pid, process);
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
      const int tid = e.value("tid", 0);
      threads_[{pid, tid}] = e["args"].value("name", "");
      next_tid_[pid] = std::max(next_tid_[pid], tid);
    }
  }
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    const auto known = std::find_if(std::begin(kNames), std::end(kNames), [&](const char* n) { return name == n; });
    if (known == std::end(kNames)) continue;
    const auto start = static_cast<std::int64_t>(e.value("ts", 0.0) * 1000.0) + offset_ns;
    const auto dur = static_cast<std::int64_t>(e.value("dur", 0.0) * 1000.0);
    std::int64_t rows = -1, bytes = -1;
    if (e.contains("args")) {
      rows = e["args"].value("rows", std::int64_t{-1});
      bytes = e["args"].value("bytes", std::int64_t{-1});
    }
    span(pid, e.value("tid", 0), *known, start, start + dur, rows, bytes);
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
