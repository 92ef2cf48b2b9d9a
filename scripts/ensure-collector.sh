#!/usr/bin/env bash
# Builds the OpenTelemetry Collector the tracing tests export to: OTLP in (gRPC and HTTP), spans out to a JSON-lines
# file through the contrib file exporter. Built once from the collector's Go modules into a cache outside the
# repository; a second run only checks the binary.
#
# Why a wrapper module: the collector distributions are assembled from components by a builder; the few lines the
# builder would generate (a main that lists the OTLP receiver and the file exporter) are written here, and the
# upstream modules are required at one release (the collector's modules must all match).
#
# Progress goes to stderr; stdout is the path of the binary. `--print-path` only prints that path (tests use it to
# find the binary without building anything).
set -euo pipefail

COLLECTOR_VERSION="${SVC_COLLECTOR_VERSION:-v0.161.0}"
GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
# Raised whenever the wrapper below changes, so a binary built from an older wrapper is not taken for this one.
RECIPE=3
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/svc/otelcol-${COLLECTOR_VERSION}-r${RECIPE}"
BIN="${CACHE_DIR}/bin/otelcol-svc"

log() { echo "ensure-collector: $*" >&2; }

write_wrapper_module() {
  local src="${CACHE_DIR}/src"
  mkdir -p "$src"
  cat >"${src}/go.mod" <<EOF
module svc.local/otelcol-build

go 1.24

require (
	go.opentelemetry.io/collector/otelcol ${COLLECTOR_VERSION}
	go.opentelemetry.io/collector/receiver/otlpreceiver ${COLLECTOR_VERSION}
	github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter ${COLLECTOR_VERSION}
)
EOF
  cat >"${src}/main.go" <<'EOF'
// The collector the svc tracing tests run: the OTLP receiver and the file exporter, nothing else.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: otelconftelemetry.NewFactory()}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol-svc", Description: "OTLP in, file out", Version: "svc"},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
				// `${VAR}` in a configuration is an environment variable, as in the upstream distributions.
				DefaultScheme: "env",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
EOF
  (cd "$src" && "$GO" mod tidy) >"${CACHE_DIR}/tidy.log" 2>&1 || { cat "${CACHE_DIR}/tidy.log" >&2; exit 1; }
}

build_collector() {
  local started out="${CACHE_DIR}/bin.tmp.$$"
  write_wrapper_module
  log "building the OpenTelemetry Collector ${COLLECTOR_VERSION} (OTLP receiver, file exporter; minutes on a cold Go build cache, once)"
  started=$(date +%s)
  mkdir -p "$out"
  (cd "${CACHE_DIR}/src" && nice -n 19 "$GO" build -trimpath -ldflags "-s -w" -o "$out/otelcol-svc" .)
  # Per process, then moved whole: two checkouts may build at once, and a half-built folder is never used.
  rm -rf "${CACHE_DIR}/bin" && mv "$out" "${CACHE_DIR}/bin"
  log "built ${BIN} in $(( $(date +%s) - started ))s"
}

built() { [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; }

if [ "${1:-}" = "--print-path" ]; then echo "$BIN"; exit 0; fi
built || build_collector
echo "$BIN"
