#include "transport/testbed/awake_cores.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>

#include <doctest/doctest.h>

namespace exsim::transport {
namespace {

// The machine's wake-up latency limit the kernel now keeps (us), the strictest
// of every holder's; none when the device cannot be read (it is root's alone).
std::optional<std::int32_t> latency_limit_us() {
  const int fd = ::open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::int32_t value = -1;
  const bool read_whole = ::read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
  ::close(fd);
  return read_whole ? std::optional(value) : std::nullopt;
}

TEST_CASE("AwakeCores holds the cores' wake-up latency at 0 while it lives, and lets go when it ends") {
  const std::optional<std::int32_t> before = latency_limit_us();
  if (!before) {
    // Not root (or no PM QoS): said, with the device named, not pretended.
    AwakeCores cores;
    CHECK_FALSE(cores.held());
    CHECK(cores.why_not().find("/dev/cpu_dma_latency") != std::string::npos);
    MESSAGE("cannot read /dev/cpu_dma_latency here: only the refusal is tested");
    return;
  }
  {
    AwakeCores cores;
    REQUIRE_MESSAGE(cores.held(), cores.why_not());
    CHECK(cores.why_not().empty());
    CHECK(latency_limit_us() == 0);
  }
  // The suite's tests run one at a time: no other holder came or went meanwhile.
  CHECK(latency_limit_us() == before);
  if (*before == 0) MESSAGE("another process holds the cores awake: the release is not seen here");
}

}  // namespace
}  // namespace exsim::transport
