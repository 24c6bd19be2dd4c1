# Conveniences over the scripts; the scripts are the reference (README).
PREFIX ?= /usr/local

.PHONY: build install uninstall test
build:
	swift build -c release --static-swift-stdlib --product hciscope
install:
	bash Scripts/install.sh $(PREFIX)
uninstall:
	bash Scripts/install.sh --uninstall $(PREFIX)
test:
	bash Scripts/test.sh
