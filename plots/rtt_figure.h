// The report's map of round-trip times between hosts: host by host for a
// small cluster, by placement group for a large one.
#ifndef EXSIM_PLOTS_RTT_FIGURE_H_
#define EXSIM_PLOTS_RTT_FIGURE_H_

#include "models/results/report_input.h"
#include "plots/figures.h"

namespace exsim::report {

// The RTT matrix of the first result that has one (rtt_heatmap), or its
// blocks by placement group past 10 hosts (rtt_groups); no data when no
// result has one.
Figure rtt_figure(const ReportInput& input);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_RTT_FIGURE_H_
