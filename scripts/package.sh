#!/usr/bin/env bash
# Builds backgrounder_VERSION_ARCH.deb: the daemon, bgctl and bgbundle in /usr/bin, the systemd
# user units, man pages, shell completions and the sample bundles (docs/PACKAGING.md says
# what goes where and why).
#
#   scripts/package.sh                          release build (static Swift runtime), then package
#   scripts/package.sh --configuration debug    debug build, then package (runs only where this
#                                               Swift toolchain is installed: for tests)
#   --output DIR   where the .deb goes (default: the repository)
#   --no-build     package what `swift build` already built; runs no SwiftPM command on .build,
#                  so it works while `swift test` holds the build directory
#   --products DIR package the products built in DIR (such as .build/x86_64-unknown-linux-gnu/debug);
#                  implies --no-build
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$PWD

configuration=release
output=$repository
build=1
products=
while [ $# -gt 0 ]; do
    case "$1" in
    --configuration | -c)
        configuration=${2:?--configuration needs release or debug}
        shift 2
        ;;
    --configuration=*)
        configuration=${1#--configuration=}
        shift
        ;;
    --output | -o)
        output=${2:?--output needs a directory}
        shift 2
        ;;
    --output=*)
        output=${1#--output=}
        shift
        ;;
    --no-build)
        build=0
        shift
        ;;
    --products)
        products=${2:?--products needs a directory}
        build=0
        shift 2
        ;;
    -h | --help)
        sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "package: unknown argument '$1' (see --help)" >&2
        exit 2
        ;;
    esac
done
case "$configuration" in
release | debug) ;;
*)
    echo "package: --configuration must be release or debug, not '$configuration'" >&2
    exit 2
    ;;
esac
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
    command -v "$tool" >/dev/null || {
        echo "package: $tool is missing; scripts/setup.sh --no-build installs it" >&2
        exit 1
    }
done
mkdir -p "$output"
output=$(cd "$output" && pwd)

version=$(sed -n 's/.*static let release = "\(.*\)".*/\1/p' Sources/BackgrounderCore/Version.swift)
[ -n "$version" ] || {
    echo "package: no version in Sources/BackgrounderCore/Version.swift" >&2
    exit 1
}
architecture=$(dpkg --print-architecture)

if [ "$build" = 1 ]; then
    if [ "$configuration" = release ]; then
        # The Swift runtime linked in: the package then needs no Swift toolchain installed.
        swift build -c release --static-swift-stdlib
    else
        swift build
    fi
fi
products=${products:-.build/$configuration}
[ -x "$products/backgrounderd" ] || {
    echo "package: $products/backgrounderd is missing; build first, or drop --no-build" >&2
    exit 1
}
# The build directory's root (.build), where SwiftPM keeps the resolved dependencies.
products=$(realpath "$products")
scratch=$(dirname "$(dirname "$products")")

stage=$(mktemp -d /tmp/backgrounder-package.XXXXXX)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
umask 022
mkdir -p "$root"
chmod 0755 "$root"

# MARK: executables
commands=(backgrounderd bgctl bgbundle)
for name in "${commands[@]}"; do
    install -D -m 0755 "$products/$name" "$root/usr/bin/$name"
    strip --strip-unneeded "$root/usr/bin/$name"
done

# MARK: sample bundles (and the sample policy plug-in), assembled and validated by bgbundle
# with the daemon's own rules, from stripped copies of the built executables.
bundles=$root/usr/share/backgrounder/bundles
mkdir -p "$bundles" "$stage/executables"
for plist in Samples/*/Info.plist; do
    name=$(basename "$(dirname "$plist")")
    executable=$(tr -d '\n' <"$plist" |
        sed -n 's|.*<key>CFBundleExecutable</key>[[:space:]]*<string>\([^<]*\)</string>.*|\1|p')
    [ -f "$products/$executable" ] || {
        echo "package: $products/$executable (the executable of $plist) was not built" >&2
        exit 1
    }
    install -m 0755 "$products/$executable" "$stage/executables/$executable"
    strip --strip-unneeded "$stage/executables/$executable"
    "$root/usr/bin/bgbundle" --name "$name" --executable "$stage/executables/$executable" \
        --info-plist "$plist" --output "$bundles" >/dev/null
done

# MARK: the Swift runtime. A release build links it into every executable, but SwiftPM links
# a dynamic library (a policy plug-in) against the toolchain's shared runtime whatever it is
# told: those libraries go into the plug-in's bundle, where its RUNPATH's $ORIGIN finds them
# on a machine without Swift. Anything else still needing the toolchain stops a release.
toolchain_libraries() { ldd "$1" 2>/dev/null | awk -v dir="$toolchain/" 'index($3, dir) == 1 { print $3 }'; }
if [ "$configuration" = release ]; then
    toolchain=$(dirname "$(dirname "$(realpath "$(command -v swift)")")")/lib/swift/linux
    for file in "$root"/usr/bin/* "$bundles"/*.bundle/*; do
        head -c4 "$file" | grep -q ELF || continue
        mapfile -t needed < <(toolchain_libraries "$file")
        [ ${#needed[@]} -eq 0 ] && continue
        case "$file" in
        "$bundles"/*.so)
            for library in "${needed[@]}"; do
                install -m 0644 "$library" "$(dirname "$file")/"
                strip --strip-unneeded "$(dirname "$file")/$(basename "$library")"
            done
            ;;
        *)
            echo "package: $file needs the toolchain's ${needed[*]}; a release must not" >&2
            exit 1
            ;;
        esac
    done
fi
# MARK: the samples' command lines on PATH, in lower case as Debian names commands: links to
# the executables in their bundles (the same program is the app when the daemon launches it,
# and its command line when a person runs it with arguments).
for name in BackgroundPlayer HikeRecorder RegionAlerts FeedReader Podcasts; do
    [ -x "$bundles/$name.bundle/$name" ] || {
        echo "package: $bundles/$name.bundle/$name is missing; its command line cannot go on PATH" >&2
        exit 1
    }
    ln -s "../share/backgrounder/bundles/$name.bundle/$name" "$root/usr/bin/${name,,}"
done
"$root/usr/bin/bgctl" validate "$bundles"/*.bundle >/dev/null || {
    "$root/usr/bin/bgctl" validate "$bundles"/*.bundle >&2
    exit 1
}

# MARK: systemd user units. ExecStart must run the packaged daemon with no --bundles, so it
# searches the XDG data directories, /usr/share/backgrounder/bundles among them.
units=$root/usr/lib/systemd/user
for unit in contrib/systemd/backgrounderd.service contrib/systemd/backgrounderd.socket; do
    install -D -m 0644 "$unit" "$units/$(basename "$unit")"
done
if ! grep -qxE 'ExecStart=/usr/bin/backgrounderd( --live-restore)?' "$units/backgrounderd.service"; then
    echo "package: contrib/systemd/backgrounderd.service must say ExecStart=/usr/bin/backgrounderd (with no --bundles)" >&2
    exit 1
fi

# MARK: man pages, by swift-argument-parser's own generator (the generate-manual plugin's
# tool), built once from the resolved checkout into a cache outside .build.
checkout=$scratch/checkouts/swift-argument-parser
[ -f "$checkout/Package.swift" ] || {
    echo "package: $checkout is missing; build the package first" >&2
    exit 1
}
revision=$(git -C "$checkout" rev-parse --short=12 HEAD 2>/dev/null || sha1sum "$checkout/Package.swift" | cut -c1-12)
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/backgrounder/generate-manual-$revision
generator=$cache/build/release/generate-manual
if [ ! -x "$generator" ]; then
    mkdir -p "$cache"
    (
        flock 9
        if [ ! -x "$generator" ]; then
            echo "package: building generate-manual (once, in $cache)"
            rm -rf "$cache/source"
            mkdir -p "$cache/source"
            tar -C "$checkout" --exclude=.git --exclude=.build -cf - . | tar -C "$cache/source" -xf -
            swift build --package-path "$cache/source" --scratch-path "$cache/build" -c release \
                --product generate-manual >"$cache/build.log" 2>&1 || {
                tail -20 "$cache/build.log" >&2
                exit 1
            }
        fi
    ) 9>"$cache/lock"
fi
# The manual's date is the last commit's, so the same tree gives the same pages.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
manuals=$root/usr/share/man/man1
mkdir -p "$manuals" "$stage/manual"
for name in "${commands[@]}"; do
    "$generator" "$products/$name" --date "$date" --output-directory "$stage/manual" >/dev/null
    gzip -9n <"$stage/manual/$name.1" >"$manuals/$name.1.gz"
done

# MARK: shell completions, where Debian's bash-completion, zsh and fish look for them
for name in bgctl backgrounderd; do
    install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
        "$root/usr/share/fish/vendor_completions.d"
    "$products/$name" --generate-completion-script bash >"$root/usr/share/bash-completion/completions/$name"
    "$products/$name" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$name"
    "$products/$name" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$name.fish"
done

# MARK: documentation
install -D -m 0644 README.md "$root/usr/share/doc/backgrounder/README.md"
install -m 0644 docs/PACKAGING.md "$root/usr/share/doc/backgrounder/PACKAGING.md"

# MARK: DEBIAN/control, with the shared libraries every ELF file needs (dpkg-shlibdeps reads
# debian/control from its working directory, so it runs in one made for it).
mapfile -t elves < <(find "$root" -type f -exec sh -c 'head -c4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
mkdir -p "$stage/shlibs/debian"
printf 'Source: backgrounder\n\nPackage: backgrounder\nArchitecture: any\n' >"$stage/shlibs/debian/control"
# A debug build links the toolchain's Swift runtime, which no Debian package provides: those
# libraries are left out (that package runs only beside this toolchain); a release has none
# (checked above).
missing=()
[ "$configuration" = debug ] && missing=(--ignore-missing-info)
depends=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "${missing[@]}" "${elves[@]}" 2>"$stage/shlibdeps.log" |
    sed -n 's/^shlibs:Depends=//p') || {
    cat "$stage/shlibdeps.log" >&2
    exit 1
}
[ -n "$depends" ] || {
    cat "$stage/shlibdeps.log" >&2
    echo "package: dpkg-shlibdeps found no dependencies" >&2
    exit 1
}
mkdir -p "$root/DEBIAN"
chmod 0755 "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<EOF
Package: backgrounder
Version: $version
Architecture: $architecture
Maintainer: Backgrounder maintainers <maintainers@backgrounder.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: gpsd, pulseaudio | pipewire-pulse, e2fsprogs
Suggests: bash-completion
Section: admin
Priority: optional
Description: iOS-style background execution for Linux apps
 backgrounderd runs apps from plug-in bundles (Name.bundle with an Info.plist)
 and lets them work in the background only for declared reasons, as iOS does:
 play audio, follow the location from gpsd, fetch content, finish a short
 task. Everything else is suspended, and apps are relaunched when an event
 they asked for arrives.
 .
 This package holds backgrounderd (run it as a systemd user service), bgctl
 to drive it, bgbundle to assemble bundles, and sample bundles in
 /usr/share/backgrounder/bundles.
EOF

# MARK: DEBIAN/prerm: removing the package stops every user's daemon, which (a stop job, not
# a restart) ends its apps despite --live-restore: nothing is left running from a removed
# package. An upgrade restarts the daemons (a restart job) and the apps stay.
cat >"$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    for runtime in /run/user/*; do
        [ -d "$runtime/systemd" ] || continue
        user=$(getent passwd "${runtime##*/}" | cut -d: -f1) || continue
        systemctl --user -M "$user@" stop backgrounderd.service backgrounderd.socket >/dev/null 2>&1 || true
    done
fi
exit 0
EOF
chmod 0755 "$root/DEBIAN/prerm"

package=$output/backgrounder_${version}_${architecture}.deb
# zstd: xz took over 10 minutes for the ~660 MB a release holds (each program carries its own
# Foundation); Debian 12's dpkg reads zstd.
compression=(-Zzstd -z9)
# A debug package is for tests: quick to make beats small.
[ "$configuration" = debug ] && compression=(-Zgzip -z1)
dpkg-deb --build --root-owner-group "${compression[@]}" "$root" "$package" >/dev/null
echo "$package"
