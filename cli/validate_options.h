// validate's options beyond the common ones: a real cluster to run on.
#ifndef EXSIM_CLI_VALIDATE_OPTIONS_H_
#define EXSIM_CLI_VALIDATE_OPTIONS_H_

#include <optional>

#include <boost/program_options.hpp>

#include "workflows/suite_measurement.h"

namespace exsim::cli {

// validate --hosts, --token-file and --cluster, checked and read; nullopt
// without --hosts. UsageError or InputError naming what is wrong.
std::optional<workflows::RealCluster> real_cluster_option(const boost::program_options::variables_map& vm);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_VALIDATE_OPTIONS_H_
