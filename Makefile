# Convenience targets; each calls a script in scripts/ that installs what it needs.
.PHONY: run test bench build icons clean

run:    ## build and launch the desktop app
	./scripts/run.sh

test:   ## run every test (Go, fuzz, frontend, browser e2e, desktop smoke)
	./scripts/test.sh

bench:  ## run the benchmarks and print their figures
	./scripts/bench.sh

build:  ## build build/bin/parley
	./scripts/setup.sh && bash -c 'source scripts/lib.sh && build_app'

icons:  ## regenerate the icons from build/icon.svg
	./scripts/icons.sh

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts
