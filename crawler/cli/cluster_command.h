// crawler/cli/cluster_command.h: `sieve cluster status|seed`, a look at and
// new seeds for a crawl shared through Redis (docs/cluster.md), from outside
// its workers.
//
//   sieve cluster status --cluster redis://HOST:PORT --crawl-id NAME [--json]
//   sieve cluster seed --cluster redis://HOST:PORT --crawl-id NAME --seeds FILE
//       [--config FILE] [--set SECTION.KEY=VALUE]... [--politeness-key KEY]
#ifndef SIEVE_CRAWLER_CLI_CLUSTER_COMMAND_H_
#define SIEVE_CRAWLER_CLI_CLUSTER_COMMAND_H_

#include <string>
#include <vector>

#include "crawler/cli/flag_parser.h"
#include "frontier/cluster/cluster_admin.h"

namespace sieve {

std::vector<FlagSpec> ClusterFlags();

// The status as a table for people, or as one JSON object.
std::string FormatClusterStatus(const cluster::ClusterStatus& status);
std::string ClusterStatusToJson(const cluster::ClusterStatus& status);

// Runs `sieve cluster ACTION`; returns the exit code (0 done, 1 failed (Redis,
// no such crawl), 2 bad usage).
int RunClusterCommand(const ParsedArgs& args);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_CLUSTER_COMMAND_H_
