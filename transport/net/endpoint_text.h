// "ADDRESS:PORT" as agents listen on it and hosts files list it: an IP
// address (v4, or v6 in brackets or bare) and a port, checked whole, so that
// "h:abc" or a port past 65535 is an error rather than a wrapped number.
#ifndef EXSIM_TRANSPORT_NET_ENDPOINT_TEXT_H_
#define EXSIM_TRANSPORT_NET_ENDPOINT_TEXT_H_

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace exsim::transport {

struct EndpointText {
  std::string address;
  unsigned short port = 0;
};

// The endpoint, or what is wrong with `text` (a phrase such as "the port
// must be a number from 1 to 65535"). `any_port`: port 0 (any) is allowed.
std::variant<EndpointText, std::string> parse_endpoint(std::string_view text, bool any_port);

// A hosts file: one ADDRESS:PORT per line (blank lines and '#' comments
// skipped). InputError naming the file, and the line of a bad entry.
std::vector<EndpointText> read_hosts_file(const std::string& path);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_ENDPOINT_TEXT_H_
