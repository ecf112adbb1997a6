#!/usr/bin/env bash
# The seed reproductions' scenarios are what their generators write: each
# generator run again from the committed plans and fitted values gives the
# committed file byte for byte, so a generator changed without regenerating
# (or a scenario edited by hand) fails here rather than in a later fit.
# Usage: seed_scenarios_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT
seeds="$src/scenarios/seeds"

regenerates() {  # regenerates COMMITTED GENERATOR [ARGS...]
  local committed=$1 out
  out="$work/$(basename "$committed")"
  shift
  "$@" -o "$out" >/dev/null && cmp -s "$out" "$committed"
}

check "make-impala-15512 writes impala-15512.json" regenerates "$seeds/impala-15512.json" "$seeds/make-impala-15512"
check "make-impala-15512 --q67a-alone writes impala-15512-q67a.json" \
  regenerates "$seeds/impala-15512-q67a.json" "$seeds/make-impala-15512" --q67a-alone
check "make-impala-12430 writes impala-12430.json" regenerates "$seeds/impala-12430.json" "$seeds/make-impala-12430"
# The check can fail: the runtime filters on order numbers change the workload.
check "another workload is not the committed one" \
  bash -c "! { \"$seeds/make-impala-15512\" --order-filters kept -o \"$work/kept.json\" >/dev/null &&
               cmp -s \"$work/kept.json\" \"$seeds/impala-15512.json\"; }"
summary
