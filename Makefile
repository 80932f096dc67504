# Convenience targets; each calls a script in scripts/ that installs what it needs.
.PHONY: run test bench build package package-test icons clean

run:    ## build and launch the desktop app
	./scripts/run.sh

test:   ## run every test (Go, fuzz, frontend, browser e2e, desktop smoke, packages)
	./scripts/test.sh

bench:  ## run the benchmarks and print their figures
	./scripts/bench.sh

build:  ## build build/bin/parley
	./scripts/setup.sh && bash -c 'source scripts/lib.sh && build_app'

package: ## build the .deb, tarballs, Windows installer and the update feed dist/stable.json (PARLEY_TARGETS picks; PARLEY_RELEASE_KEY signs the feed)
	./scripts/package.sh

package-test: ## build the packages, install the .deb, start it, update the tarball and the .deb from a loopback feed, remove it (root or sudo -n)
	./scripts/package-test.sh

icons:  ## regenerate the icons from build/icon.svg
	./scripts/icons.sh

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html test-artifacts dist
