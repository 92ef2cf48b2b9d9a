#!/usr/bin/env bash
# Installs the command-line tools the test suite drives (nothing yet beyond Node and the local services).
set -euo pipefail
