#!/bin/bash
# build-image.sh - builds the siw lab's guest: Debian bookworm with the Linux soft-iWARP driver
# (siw) and rdma-core's tools (rping, perftest), as a kernel, an initrd and an ext4 root image
# that boot.sh boots under qemu. Needs root (debootstrap, chroot) and network access to a Debian
# mirror; installs the host packages it lacks with apt-get.
#
#   sudo src-it/interop/lab/build-image.sh          # builds, or says the cached image is current
#   REBUILD=1 sudo src-it/interop/lab/build-image.sh
#
# Debian's kernels are built without siw (CONFIG_RDMA_SIW is not set), so the module is compiled
# here from Debian's linux-source package of exactly the guest kernel's version, inside the guest
# tree, and installed under /lib/modules/<kver>/updates.
#
# Output, in $IWARP4J_LAB_DIR (default ~/.cache/iwarp4j/siw-lab): vmlinuz, initrd.img,
# root.ext4, versions.txt and image.id. image.id is a digest of IMAGE_VERSION, the package list
# and guest-init: when it matches, the image is current and the script exits at once (no root
# needed); otherwise the image is rebuilt from scratch, which took 6 min on 2 vCPUs, 19 min on a
# heavily loaded host (docs/interop.md). Bump IMAGE_VERSION when a change here changes what the image holds.
set -euo pipefail

LAB_SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${IWARP4J_LAB_DIR:-$HOME/.cache/iwarp4j/siw-lab}
IMAGE_VERSION=1
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the interop suite runs in the guest, and what guest-init needs to bring siw up.
GUEST_PACKAGES=linux-image-amd64,initramfs-tools,kmod,iproute2,procps,rdma-core,ibverbs-providers,ibverbs-utils,rdmacm-utils,perftest

step() { printf '[lab-build %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
started=$(date +%s)

image_id=$( (echo "$IMAGE_VERSION $SUITE $GUEST_PACKAGES"; cat "$LAB_SRC/guest-init") \
  | sha256sum | cut -c1-16)
if [ "${REBUILD:-0}" != 1 ] && [ -f "$OUT/image.id" ] && [ "$(cat "$OUT/image.id")" = "$image_id" ] \
    && [ -s "$OUT/root.ext4" ] && [ -s "$OUT/vmlinuz" ] && [ -s "$OUT/initrd.img" ]; then
  step "the image in $OUT is current ($image_id); REBUILD=1 rebuilds it"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "build-image.sh: building the image needs root (debootstrap and chroot)" >&2
  exit 1
fi

missing=()
for pair in qemu-system-x86_64:qemu-system-x86 debootstrap:debootstrap mke2fs:e2fsprogs \
    socat:socat; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing host packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$OUT"
WORK=$OUT/build
TREE=$WORK/tree
umount_all() {
  for fs in dev/pts dev sys proc; do
    mountpoint -q "$TREE/$fs" 2>/dev/null && umount -l "$TREE/$fs"
  done
  return 0
}
trap umount_all EXIT
umount_all
rm -rf --one-file-system "$WORK" "$OUT/image.id"
mkdir -p "$WORK"

step "debootstrap $SUITE ($GUEST_PACKAGES)"
debootstrap --variant=minbase --include="$GUEST_PACKAGES" "$SUITE" "$TREE" "$MIRROR" \
  > "$WORK/debootstrap.log" 2>&1 || { tail -30 "$WORK/debootstrap.log" >&2; exit 1; }

in_tree() { chroot "$TREE" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive HOME=/root "$@"; }
for fs in proc sys dev dev/pts; do mount --bind "/$fs" "$TREE/$fs"; done
cat > "$TREE/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
SOURCES

kver=$(ls "$TREE/lib/modules" | sort -V | tail -1)
kpkg=$(in_tree dpkg-query -W -f='${Version}' "linux-image-$kver")
series=${kver%%.*}.$(echo "$kver" | cut -d. -f2)
step "guest kernel $kver ($kpkg): compiling siw.ko from linux-source-$series=$kpkg"
in_tree apt-get update -qq
in_tree apt-get install -y -qq --no-install-recommends "linux-headers-$kver=$kpkg" \
  "linux-source-$series=$kpkg" make xz-utils > "$WORK/kbuild-deps.log" 2>&1 \
  || { tail -30 "$WORK/kbuild-deps.log" >&2; exit 1; }
in_tree /bin/bash -euc "
  mkdir -p /tmp/siw && cd /tmp/siw
  tar -xJf /usr/src/linux-source-$series.tar.xz --strip-components=5 \
    linux-source-$series/drivers/infiniband/sw/siw
  make -s -C /lib/modules/$kver/build M=/tmp/siw CONFIG_RDMA_SIW=m modules
  install -D -m 0644 siw.ko /lib/modules/$kver/updates/siw.ko
  depmod -a $kver
  rm -rf /tmp/siw
" > "$WORK/siw-build.log" 2>&1 || { tail -30 "$WORK/siw-build.log" >&2; exit 1; }
in_tree modinfo -F vermagic "/lib/modules/$kver/updates/siw.ko" > "$WORK/siw-vermagic"
step "siw.ko built (vermagic $(cat "$WORK/siw-vermagic"))"

# The compiler, headers and source are only needed for the module: drop them (a smaller image is
# made and booted faster).
in_tree apt-get purge -y -qq --auto-remove "linux-headers-$kver" "linux-source-$series" make \
  xz-utils > /dev/null 2>&1
in_tree apt-get clean
in_tree dpkg-query -W -f='${Package} ${Version}\n' "linux-image-$kver" rdma-core \
  ibverbs-providers rdmacm-utils perftest > "$WORK/versions.txt"
umount_all

step "configuring the guest"
install -m 0755 "$LAB_SRC/guest-init" "$TREE/sbin/guest-init"
echo siw-lab > "$TREE/etc/hostname"
printf '127.0.0.1 localhost\n10.0.2.15 siw-lab\n' > "$TREE/etc/hosts"
echo '/dev/vda / ext4 rw 0 1' > "$TREE/etc/fstab"
rm -rf "$TREE/var/cache/apt/archives"/*.deb "$TREE/var/lib/apt/lists"/* "$TREE/usr/share/doc" \
  "$TREE/usr/share/man" "$TREE/usr/share/locale"

step "making the root image ($(du -sh "$TREE" | cut -f1) of files)"
mke2fs -q -F -t ext4 -L siw-lab -d "$TREE" "$WORK/root.ext4" 1536M
cp "$TREE/boot/vmlinuz-$kver" "$WORK/vmlinuz"
cp "$TREE/boot/initrd.img-$kver" "$WORK/initrd.img"
for f in root.ext4 vmlinuz initrd.img versions.txt; do mv -f "$WORK/$f" "$OUT/$f"; done
rm -rf --one-file-system "$WORK"
echo "$image_id" > "$OUT/image.id"
step "done in $(( $(date +%s) - started )) s: $OUT"
cat "$OUT/versions.txt"
