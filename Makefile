# Darkroom: `make run` and `make test` set everything up on a fresh Debian 12
# machine, then run the main job or every test.

SWIFT ?= swift
export PATH := $(PATH):/opt/swift/usr/bin
OUT ?= darkroom-out

.PHONY: run thumbnails test build release bootstrap bench clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build -c release --product darkroom

# The main job: the image server and the gallery, on the bundled sample
# photos, at http://127.0.0.1:8080/ (PORT=... to change it).
PORT ?= 8080
run: release
	$(SWIFT) run -c release --skip-build darkroom serve --port $(PORT)

# Sepia thumbnails of the bundled sample photos, without the server.
thumbnails: release
	$(SWIFT) run -c release --skip-build darkroom process Sources/DarkroomServer/Resources/samples/photos/*.jpg \
		--resize 600 --filter sepia:0.8 -o $(OUT)/samples/
	@echo "Sepia thumbnails written to $(OUT)/samples/"

test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

# Benchmarks print their figures; docs/benchmarks.md records them.
bench:
	@scripts/bootstrap --bench
	$(SWIFT) build -c release --product darkroom
	$(SWIFT) build -c release --product darkroom-bench
	python3 bench/thumbnails.py --memory
	python3 bench/fetch.py
	python3 bench/book.py
	.build/release/darkroom-bench queue
	DARKROOM_CORPUS=$${DARKROOM_CORPUS:-../shared/corpus} .build/release/darkroom-bench hit-latency

clean:
	rm -rf .build $(OUT)
