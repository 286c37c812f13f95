# Thin wrapper over CMake: `make run` and `make test` are the whole setup.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build run test bench clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/distcalc --config configs/systems.json --seed 7

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
