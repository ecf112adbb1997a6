// What `exsim advise` prints: its advice as text (the policies simulated, the
// pick, the knee, what it is not told apart from, where the model was not
// checked, what the costs' ranges do to it) and as JSON (`-o`: every candidate,
// in a form `exsim report` reads).
#ifndef EXSIM_CLI_ADVICE_OUTPUT_H_
#define EXSIM_CLI_ADVICE_OUTPUT_H_

#include <string>

#include "models/scenario/scenario.h"
#include "workflows/advice.h"

namespace exsim::cli {

// `measure` "worst" or "expected"; `margin` the decision rule's, a fraction.
std::string advice_json(const Scenario& scenario, const workflows::Advice& advice, Bytes budget, const char* measure,
                        double margin);
// Everything but the judging's verdict, which comes after it: advise prints
// this as soon as its search ends.
std::string render_advice(const Scenario& scenario, const workflows::Advice& advice, Bytes budget, const char* measure,
                          double margin);
// What the costs' ranges do to the pick (a line), or "" when not judged.
std::string render_verdict(const workflows::Advice& advice);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_ADVICE_OUTPUT_H_
