// The shared token that opens agents to a coordinator, and the file it is
// kept in. The token is the key of the handshake's HMAC (wire/handshake.h), so
// its strength is the run's: it must carry at least 128 bits, and, as ssh
// treats a private key, its file must be readable by its owner alone.
#ifndef EXSIM_TRANSPORT_AGENT_TOKEN_FILE_H_
#define EXSIM_TRANSPORT_AGENT_TOKEN_FILE_H_

#include <string>

namespace exsim::transport {

inline constexpr int kMinTokenBits = 128;

// 128 bits from the kernel's random source, as 32 hexadecimal digits.
std::string random_token();

// The bits a token carries at most, by its alphabet: 4 a character when it is
// all hexadecimal digits, else 6 (base64's; a word's are fewer).
int token_bits(const std::string& token);

// The token in `path` (its first word). Throws InputError, naming the file,
// when the file is missing, unreadable, not a regular file, open to its group
// or others (any of the mode's bits 077), or holds no token or a weak one.
std::string read_token_file(const std::string& path);

// Writes a new random token to `path`, created anew with mode 0600 (never over
// an existing file, nor through a link). Returns the token; throws InputError.
std::string write_new_token_file(const std::string& path);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_TOKEN_FILE_H_
