// Work spread over threads, as simulate (policies) and sweep (points) run it.
#ifndef EXSIM_WORKFLOWS_PARALLEL_H_
#define EXSIM_WORKFLOWS_PARALLEL_H_

#include <cstddef>
#include <exception>
#include <functional>

namespace exsim::workflows {

// Calls work(i) for each i in [0, count) on `jobs` threads, each taking the
// next index as it finishes one. No index is taken once a call has thrown or
// `keep_going` (when given) says no; the calls under way finish. Returns the
// first exception thrown, or null.
std::exception_ptr for_each_parallel(std::size_t count, int jobs, const std::function<void(std::size_t)>& work,
                                     const std::function<bool()>& keep_going = {});

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_PARALLEL_H_
