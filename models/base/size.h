// Byte sizes as users write them: 16384, "16K", "4M", "1G", "1.5M" (binary suffixes).
#ifndef EXSIM_MODELS_BASE_SIZE_H_
#define EXSIM_MODELS_BASE_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace exsim {

using Bytes = std::int64_t;

inline constexpr Bytes kKiB = 1024;
inline constexpr Bytes kMiB = 1024 * kKiB;
inline constexpr Bytes kGiB = 1024 * kMiB;

// Parses "123", "16K", "16KiB", "4M", "1G", "2T" (case-insensitive suffix, binary
// multiples). Returns nullopt when the text is not a size.
std::optional<Bytes> parse_size(std::string_view text);

// The shortest exact spelling: 16384 -> "16K", 4194304 -> "4M", 1000 -> "1000".
std::string format_size(Bytes bytes);

// For tables: 1536 -> "1.5 KiB", 3.2e9 -> "2.98 GiB".
std::string human_bytes(double bytes);

// A size a user reads: its exact spelling where it has a short one (16384 ->
// "16K", 1000 -> "1000"), else in human units (104857 -> "102 KiB").
std::string readable_size(Bytes bytes);

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_SIZE_H_
