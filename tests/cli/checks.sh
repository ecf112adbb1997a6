# Shared by the command-line tests, sourced with the test's arguments EXSIM
# SOURCE_DIR: a work directory, named checks that count passes and failures,
# and the summary that sets the exit status.
exsim=$1
src=$2
work=$(mktemp -d)
passed=0
failed=0

check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}

has() { grep -qF -- "$1" "$2"; }  # has TEXT FILE
hasnt() { ! grep -qF -- "$1" "$2"; }  # hasnt TEXT FILE

summary() {  # last command of a test: prints the counts, fails if any check did
  echo "$(basename "$0" .sh): $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
