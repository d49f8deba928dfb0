// What the load drivers measure outside the server: its CPU time and memory
// from /proc, and latency percentiles. Shared by inarow-load and compare-load.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace inarow::bench {

struct ProcSample {
  double cpu_s = 0;   // user + system CPU seconds so far
  long rss_kib = -1;  // resident memory now
  long hwm_kib = -1;  // peak resident memory
};

// A process's CPU time and memory; all -1/0 for pid <= 0 or a vanished process.
inline ProcSample sample_process(int pid) {
  ProcSample s;
  if (pid <= 0) return s;
  {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the ")" of the command name: state is field 3, utime 14, stime 15.
    const auto close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream rest(line.substr(close + 2));
      std::string field;
      double utime = 0, stime = 0;
      for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stod(field);
        if (i == 15) stime = std::stod(field);
      }
      s.cpu_s = (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") status >> s.rss_kib;
    if (key == "VmHWM:") status >> s.hwm_kib;
    status.ignore(1 << 12, '\n');
  }
  return s;
}

// The whole machine's CPU time from /proc/stat, in seconds of all cores
// together: busy (everything but idle and iowait) and the total.
struct MachineCpu {
  double busy_s = 0;
  double total_s = 0;
};

inline MachineCpu sample_machine() {
  MachineCpu m;
  std::ifstream stat("/proc/stat");
  std::string cpu;
  stat >> cpu;  // the first line adds up every core
  double field = 0;
  for (int i = 0; i < 8 && stat >> field; ++i) {
    m.total_s += field;
    if (i != 3 && i != 4) m.busy_s += field;  // 3: idle, 4: iowait
  }
  const auto tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  m.busy_s /= tick;
  m.total_s /= tick;
  return m;
}

// The p-th percentile (0..100) by nearest rank below; 0 for no samples.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace inarow::bench
