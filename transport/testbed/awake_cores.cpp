#include "transport/testbed/awake_cores.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace exsim::transport {
namespace {
constexpr const char* kDevice = "/dev/cpu_dma_latency";
}  // namespace

AwakeCores::AwakeCores() {
  const int fd = ::open(kDevice, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    why_not_ = std::string(kDevice) + ": " + std::strerror(error) + (error == EACCES || error == EPERM ? " (needs root)" : "");
    return;
  }
  // The largest wake-up latency allowed, in microseconds, as a binary s32: 0
  // leaves the cores only states they leave at once (polling).
  const std::int32_t none = 0;
  if (::write(fd, &none, sizeof none) != static_cast<ssize_t>(sizeof none)) {
    why_not_ = std::string(kDevice) + ": write: " + std::strerror(errno);
    ::close(fd);
    return;
  }
  fd_ = fd;
}

AwakeCores::~AwakeCores() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace exsim::transport
