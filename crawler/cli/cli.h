// crawler/cli/cli.h: `sieve`'s entry point: subcommand dispatch, help, and
// usage errors.
//
// Exit codes: 0 success (including --help), 1 the command failed, 2 bad usage
// (unknown command or flag, bad flag value, bad config file), with a one-line
// message on stderr.
#ifndef SIEVE_CRAWLER_CLI_CLI_H_
#define SIEVE_CRAWLER_CLI_CLI_H_

namespace sieve {

int RunCli(int argc, char** argv);

}  // namespace sieve

#endif  // SIEVE_CRAWLER_CLI_CLI_H_
