// `exsim calibrate --hosts FILE`: the options that go with it, and the run.
#ifndef EXSIM_CLI_CALIBRATE_CLUSTER_H_
#define EXSIM_CLI_CALIBRATE_CLUSTER_H_

#include <boost/program_options.hpp>

namespace exsim::cli {

void add_cluster_options(boost::program_options::options_description& options);
// Measures the cluster the agents in --hosts run on and writes --cluster and -o.
int calibrate_cluster(const boost::program_options::variables_map& vm, int repetitions, double scale);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_CALIBRATE_CLUSTER_H_
