#include "sim/exchange/row_router.h"

namespace exsim::sim {

HashSplitter::HashSplitter(const std::vector<double>& shares) : conditional_(shares.size()) {
  double rest = 0;
  for (std::size_t c = shares.size(); c-- > 0;) {
    rest += shares[c];
    conditional_[c] = rest > 0 ? shares[c] / rest : 0;
  }
  if (!conditional_.empty()) conditional_.back() = 1.0;
}

}  // namespace exsim::sim
