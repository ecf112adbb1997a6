// Figures as the tool's tables and reports print them: one way everywhere, so
// that the same figure reads the same in `simulate`, `validate` and `report`.
#ifndef EXSIM_MODELS_BASE_TEXT_UNITS_H_
#define EXSIM_MODELS_BASE_TEXT_UNITS_H_

#include <string>

namespace exsim {

// "1.234 s" from a second up (and for 0); "123.4 ms" below; "0.097 ms" below a
// millisecond, so that a short figure never reads 0.000 s.
std::string format_seconds(double seconds);

// A signed fraction as a percentage, "+12.3%" or "-0.4%"; "n/a" when it is not
// a number (a ratio to zero).
std::string format_signed_percent(double fraction);

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_TEXT_UNITS_H_
