// Traces: the sampler keeps an even 1-in-2^k sample within its budget, and the
// file is the trace event format.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "models/results/trace.h"

namespace exsim {
namespace {

TEST_CASE("a trace under its budget keeps every span; over it, every 2^k-th") {
  Trace trace(100);
  const int tid = trace.track(3, "16K: h3", "q x sender 0");
  CHECK(tid == 1);
  CHECK(trace.track(3, "16K: h3", "q x sender 1") == 2);
  for (int i = 0; i < 100; ++i) trace.span(3, tid, "serialize", i * 1000, i * 1000 + 500);
  CHECK(trace.kept() == 100);
  CHECK(trace.sampling_shift() == 0);
  trace.span(3, tid, "serialize", 100000, 100500);  // the 101st: keep even numbers only
  CHECK(trace.sampling_shift() == 1);
  CHECK(trace.kept() == 51);
  for (int i = 101; i < 1000; ++i) trace.span(3, tid, "compress", i * 1000, i * 1000 + 10);
  CHECK(trace.offered() == 1000);
  CHECK(trace.kept() <= 100);
  const int step = 1 << trace.sampling_shift();
  CHECK(trace.kept() == static_cast<std::size_t>((1000 + step - 1) / step));  // spans 0, 2^k, 2*2^k, ...: even over the run
  const auto doc = nlohmann::json::parse(trace.to_json("test"));
  CHECK(doc["otherData"]["sampling"] == "1 in " + std::to_string(1 << trace.sampling_shift()));
  long long last = -1;
  int spans = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++spans;
    CHECK(e["ts"].get<double>() > static_cast<double>(last));  // in the order made, spread over the run
    last = static_cast<long long>(e["ts"].get<double>());
  }
  CHECK(spans == static_cast<int>(trace.kept()));
  CHECK(last >= 900 * 1000 / 1000);  // the sample reaches the end of the run (us)
}

TEST_CASE("spans carry microseconds, and rows and bytes when given") {
  Trace trace;
  const int tid = trace.track(0, "p", "t");
  trace.span(0, tid, "rpc in flight", 1500, 4000, 1024, 20000);
  trace.span(0, tid, "blocked", 5000, 4000);  // an end before the start is a zero-length span
  const auto doc = nlohmann::json::parse(trace.to_json("test"));
  int found = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") CHECK(e["args"]["name"] == "t");
    if (e["ph"] != "X") continue;
    ++found;
    if (e["name"] == "rpc in flight") {
      CHECK(e["ts"].get<double>() == 1.5);
      CHECK(e["dur"].get<double>() == 2.5);
      CHECK(e["args"]["rows"] == 1024);
      CHECK(e["args"]["bytes"] == 20000);
    } else {
      CHECK(e["dur"].get<double>() == 0);
      CHECK_FALSE(e.contains("args"));
    }
  }
  CHECK(found == 2);
}

}  // namespace
}  // namespace exsim
