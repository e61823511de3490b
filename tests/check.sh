# The check helper of the CLI test scripts (cli_test.sh, cli_m3_test.sh, mpi_test.sh), sourced:
# check NAME COMMAND... counts a pass when COMMAND succeeds, else prints
# "FAIL: NAME"; check_summary prints the counts and fails if any check did.
pass=0
failn=0
check() { # name, condition (a command)
    local name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else failn=$((failn + 1)); echo "FAIL: $name"; fi
}
check_summary() {
    echo "$pass passed, $failn failed"
    test "$failn" -eq 0
}
