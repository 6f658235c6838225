# Sourced by scripts/test, scripts/demo and .ci/run: `stage NAME COMMAND...` runs one stage and
# prints how long it took, so that a slow stage shows in every CI log.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  printf '[stage] %-28s %4d s%s\n' "$name" $((SECONDS - start)) "$([[ $rc != 0 ]] && echo "  FAILED ($rc)")"
  return $rc
}
# `quiet COMMAND...`: the command with its standard output dropped (errors still show).
quiet() { "$@" >/dev/null; }
