# The README's two set-up commands are `make run` and `make test`; both install and build what they need.
SHELL := /bin/bash
# better-sqlite3 compiles from source against the local Node headers when no prebuilt binary can be fetched. Given to
# the install only: npm warns about the setting in every other command.
NODE_HEADERS ?= $(if $(wildcard /usr/include/node/node.h),/usr,)

RESOURCES ?= .svc/resources
DATA_DIR ?= .svc/data

.PHONY: run test build package lint bench install clean

node_modules/.package-lock.json: package.json package-lock.json */package.json
	$(if $(NODE_HEADERS),npm_config_nodedir=$(NODE_HEADERS) )npm ci

install: node_modules/.package-lock.json

build: install
	npm run build

# Runs svcd in the foreground on the embedded SQLite default (also the workflow actor store), through `svc run`:
# the resources folder is written when missing, the UI address printed once svcd is ready, Ctrl-C stops it.
run: build
	node runtime/bin/svc.js run --app-id $${SVC_APP_ID:-myapp} --resources-path $(RESOURCES) --data-dir $(DATA_DIR)

# The package users install: dist/svc-<version>-<platform>-<arch>-node<major>.tgz (svcd, svc, the UI and the compiled
# SQLite addon; no dependency to fetch): `npm install -g ./dist/svc-….tgz`.
package: build
	node scripts/package.mjs

# Every test: unit, integration (real svcd, real Redis and PostgreSQL) and e2e (real SDKs).
test: build
	bash scripts/ensure-services.sh
	bash scripts/ensure-tools.sh
	node scripts/run-tests.mjs $(TEST_ARGS)

lint: build
	npm run lint

bench: build
	bash scripts/ensure-services.sh
	node bench/dist/src/run-all.js

clean:
	npm run clean
	rm -rf .svc
