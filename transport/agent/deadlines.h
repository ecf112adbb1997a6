// How long each step of the conversation between the coordinator and its
// agents may take, in one place. Each bounds a step that takes milliseconds
// when all is well; the figure is what a loaded 2-core machine, or an agent on
// another host starting a process, may need, with room. A step past its
// deadline fails the run and names the agent and the step.
#ifndef EXSIM_TRANSPORT_AGENT_DEADLINES_H_
#define EXSIM_TRANSPORT_AGENT_DEADLINES_H_

#include <chrono>

namespace exsim::transport::deadlines {

using std::chrono::milliseconds;
using std::chrono::seconds;

// An agent answering the coordinator's first messages: claimed for this run,
// its host set up and listening (ready), its connections to every peer made.
inline constexpr seconds kClaim{30};
inline constexpr seconds kReady{30};
inline constexpr seconds kConnected{30};
// A step between runs: counters reset, CPU time read, a "bye" with the agent's
// figures on shutdown.
inline constexpr seconds kBetweenRuns{10};
// An exchange prepared on every agent: its rows generated and its threads started.
inline constexpr seconds kPrepared{60};
// Past a run's own --timeout, the time its agents have to report it done.
inline constexpr seconds kRunReport{10};
// Agents that said "bye" exit by themselves within this; then they are
// signalled, and killed after kKillGrace more.
inline constexpr seconds kExitAfterBye{2};
inline constexpr seconds kKillGrace{5};
// After a failure, how long the control connections have to report the agents
// that died, so that the error names them.
inline constexpr milliseconds kReportDeadAgents{300};
// A connection to an agent's control port must present the token within this.
inline constexpr seconds kHello{10};
// An agent serving coordinators one after another listens again within this
// of its last one's shutdown (its teardown and last reply's drain included).
inline constexpr seconds kBetweenSessions{5};
// An agent's last reply leaves before it closes its control connection.
inline constexpr seconds kLastReplyLeaves{2};

}  // namespace exsim::transport::deadlines

#endif  // EXSIM_TRANSPORT_AGENT_DEADLINES_H_
