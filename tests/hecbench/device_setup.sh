# device_setup.sh - sourced by emu16.sh and both16.sh on the GPU machine (the device tool's run):
# the log to $OUT/log.txt, the machine's name, the carried zstd and libraries where the machine
# lacks them, and the programs built here (pack.sh's $c/hb.tar.zst) unpacked into /tmp/hb.
# Needs c (the carry folder) and t0 (the start, date +%s).
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine: $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo)"
command -v zstd >/dev/null || export PATH=$PWD/$c/bin:$PATH
for l in libffi.so.8 libzstd.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
mkdir -p /tmp/hb && zstd -dc "$c/hb.tar.zst" | tar -xf - -C /tmp/hb || exit 1
echo "unpacked at $(( $(date +%s) - t0 )) s"
