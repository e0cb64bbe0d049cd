#!/usr/bin/env bash
# Makes Hone's AppImage from the .deb that `make bundle` has just made, with no download: the Tauri bundler's AppImage
# needs linuxdeploy and the AppImage runtime from GitHub, which the build cannot reach.
#
#   scripts/bundle-appimage.sh [PROFILE]       # debug (the default, as `make bundle`) or release
#
# The AppImage holds the .deb's files (usr/bin/hone-app, usr/bin/hone, the desktop entry and the icon), an AppRun and
# the desktop entry and icon again at its root, as the AppImage specification asks. Its filesystem is made by the
# reference `mksquashfs` (Debian's squashfs-tools) with LZ4, and its runtime is Hone's own (crates/hone-appimage: it
# unpacks the image into the user's cache instead of mounting it with FUSE). Like the .deb, it uses the system's
# WebKitGTK 4.1 and GTK 3 (Debian/Ubuntu: libwebkit2gtk-4.1-0); it does not carry them.
#
# Writes $TARGET/PROFILE/bundle/appimage/Hone_VERSION_amd64.AppImage.
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-debug}"
target="${CARGO_TARGET_DIR:-target}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
deb="$target/$profile/bundle/deb/Hone_${version}_amd64.deb"
runtime="$target/$profile/hone-appimage-runtime"
out_dir="$target/$profile/bundle/appimage"
image="$out_dir/Hone_${version}_amd64.AppImage"

[ -f "$deb" ] || { echo "bundle-appimage: $deb is missing (make bundle makes it first)" >&2; exit 2; }
# A release package's build (`tauri build`) compiles the app and `hone` only.
[ "$profile" != release ] || cargo build --release --locked -p hone-appimage
[ -x "$runtime" ] || { echo "bundle-appimage: $runtime is not built (make build)" >&2; exit 2; }
command -v mksquashfs >/dev/null || { echo "bundle-appimage: mksquashfs is missing (apt install squashfs-tools; scripts/setup-app.sh installs it)" >&2; exit 2; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
app_dir="$scratch/Hone.AppDir"
mkdir "$app_dir"
dpkg-deb -x "$deb" "$app_dir"

# The AppImage's entry point: the app, or the `hone` command when the AppImage was started through a link named
# `hone` (its runtime passes that name as ARGV0).
cat >"$app_dir/AppRun" <<'EOF'
#!/bin/sh
here="$(dirname "$(readlink -f "$0")")"
case "$(basename "${ARGV0:-$0}")" in
  hone) exec "$here/usr/bin/hone" "$@" ;;
  *) exec "$here/usr/bin/hone-app" "$@" ;;
esac
EOF
chmod 755 "$app_dir/AppRun"
cp "$app_dir/usr/share/applications/Hone.desktop" "$app_dir/Hone.desktop"
icon="$(sed -n 's/^Icon=//p' "$app_dir/Hone.desktop")"
cp "$app_dir/usr/share/icons/hicolor/64x64/apps/$icon.png" "$app_dir/$icon.png"
ln -s "$icon.png" "$app_dir/.DirIcon"

# The runtime without its symbols (it is the part every start reads), then the filesystem after it. Files are
# root's, and dated by SOURCE_DATE_EPOCH when it is set, so that the same inputs make the same image.
strip -o "$scratch/runtime" "$runtime"
mksquashfs "$app_dir" "$scratch/image.squashfs" -comp lz4 -Xhc -all-root -noappend -quiet -no-progress \
  ${SOURCE_DATE_EPOCH:+-mkfs-time "$SOURCE_DATE_EPOCH" -all-time "$SOURCE_DATE_EPOCH"} >/dev/null
mkdir -p "$out_dir"
cat "$scratch/runtime" "$scratch/image.squashfs" >"$image.part"
# The AppImage type 2 magic: `AI` and 2 at byte 8 of the ELF header, in padding the loader ignores.
printf 'AI\002' | dd of="$image.part" bs=1 seek=8 conv=notrunc status=none
chmod 755 "$image.part"
mv -f "$image.part" "$image"
echo "bundle-appimage: $image ($(du -m "$image" | cut -f1) MB)"
