// The cores of a host (or of one machine shared by emulated hosts), shared by
// the threads that run on them: egalitarian processor sharing where one job,
// being one thread, never runs faster than one core. With n jobs on k cores
// each progresses at min(1, k / n) of a core.
//
// Implemented with virtual time: V advances at min(1, k/n) per nanosecond and a
// job ends when V reaches its start V plus its work, so a job's finish tag
// never changes and the pool keeps a single pending event, its next completion.
#ifndef EXSIM_SIM_RESOURCES_CPU_POOL_H_
#define EXSIM_SIM_RESOURCES_CPU_POOL_H_

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.h"

namespace exsim::sim {

class CpuPool final : public EventHandler {
 public:
  CpuPool(Simulator& simulator, int cores);
  CpuPool(const CpuPool&) = delete;
  CpuPool& operator=(const CpuPool&) = delete;

  // Runs `work` nanoseconds of one core's time; done->on_event(tag) when finished.
  void start(SimTime work, EventHandler* done, std::uint64_t tag);

  int cores() const { return cores_; }
  std::size_t active() const { return jobs_.size(); }

  void on_event(std::uint64_t generation) override;

 private:
  struct Job {
    double finish;  // virtual time at which the job is done
    std::uint64_t seq;
    EventHandler* done;
    std::uint64_t tag;
  };
  struct Later {
    bool operator()(const Job& a, const Job& b) const {
      return a.finish > b.finish || (a.finish == b.finish && a.seq > b.seq);
    }
  };

  double speed() const;  // of each job, in cores
  void advance();
  void reschedule();

  Simulator& simulator_;
  const int cores_;
  std::vector<Job> jobs_;  // min-heap on (finish, seq)
  std::vector<Job> finished_;
  double virtual_time_ = 0;
  SimTime last_update_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t generation_ = 0;
  SimTime scheduled_at_ = -1;  // time of the pending completion event, -1 if none
  bool dispatching_ = false;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_CPU_POOL_H_
