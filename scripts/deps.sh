#!/bin/sh
# Makes sure the Debian packages the build needs are present. As root with
# apt-get available it installs what is missing; otherwise it prints the
# exact command to run and fails.
set -u
missing=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need_pkg() { have_pkg "$1" || missing="$missing $1"; }

need_cmd cmake cmake
need_cmd cc gcc
need_cmd pkg-config pkg-config
need_cmd python3 python3 # tests/cli/test_csv.sh reads the CSV back with its csv module
need_cmd /usr/bin/time time # tests/cli/test_bounds.sh measures a child's peak memory alone
if command -v dpkg-query >/dev/null 2>&1; then
  need_pkg libcjson-dev
  need_pkg check
else
  # not Debian: trust pkg-config and the header
  [ -f /usr/include/cjson/cJSON.h ] || missing="$missing libcjson-dev"
  pkg-config --exists check 2>/dev/null || missing="$missing check"
fi
# Optional: headless Chromium renders every --plot chart in
# tests/cli/test_plot_browser.sh, which skips itself without it. Installed
# when missing and root (a one-time apt cost of a few hundred MB); never a
# reason to fail the build.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
  [ "${DISTCALC_NO_CHROMIUM:-0}" != 1 ] && command -v dpkg-query >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "distcalc: installing chromium for the browser test of --plot (DISTCALC_NO_CHROMIUM=1 skips it)" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -q && apt-get install -y -q chromium; } >&2 ||
      echo "distcalc: chromium did not install; tests/cli/test_plot_browser.sh will report itself skipped" >&2
  else
    echo "distcalc: no chromium: tests/cli/test_plot_browser.sh will report itself skipped (apt-get install chromium)" >&2
  fi
fi
[ -z "$missing" ] && exit 0

cmd="apt-get install -y$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "distcalc: installing build dependencies:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 && apt-get install -y -q $missing >&2 && exit 0
  echo "distcalc: installing failed; run as root: apt-get update && $cmd" >&2
  exit 1
fi
echo "distcalc: missing build dependencies:$missing" >&2
echo "distcalc: run: sudo apt-get update && sudo $cmd" >&2
exit 1
