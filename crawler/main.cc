// sieve: a web crawler whose to-visit queue is a FIFO guarded by a Bloom
// filter.
#include "crawler/cli/cli.h"

int main(int argc, char** argv) { return sieve::RunCli(argc, argv); }
