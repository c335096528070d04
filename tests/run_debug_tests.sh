#!/bin/bash
# run_debug_tests.sh - the step debugger and the trace (`ptxemu debug`, docs/debug.md) on
# tests/debug/stepme.cu: a scripted session (-x), the trace with its filters, and an
# interactive session driven through tmux as a person would type it; source variables on
# tests/debug/vars.cu built with nvcc -G.
# Usage: tests/run_debug_tests.sh [BUILDDIR]  (77 without nvcc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-${abs_top_builddir:-$here/..}}" && pwd)
launcher=$build/runtime/ptxemu
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
[ -x "$launcher" ] || { echo "ERROR: no launcher at $launcher"; exit 1; }
work=$(mktemp -d) || exit 1
sock=ptxemu-debug-test-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$work"' EXIT
fails=0 passes=0
ok() { echo "PASS: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

"$NVCC" -arch=sm_90 -lineinfo -o "$work/stepme" "$here/debug/stepme.cu" -diag-suppress 20054 \
    >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: build"; exit 1; }
cd "$work" || exit 1

# Each expected line must appear in the output, in this order.
in_order() {   # NAME OUTPUT EXPECTED-FILE
    python3 - "$2" "$3" <<'PY' && ok "$1" || { bad "$1"; sed 's/^/    /' "$2" | head -80; }
import sys
out = open(sys.argv[1], errors="replace").read()
pos = 0
for want in open(sys.argv[2]).read().splitlines():
    i = out.find(want, pos)
    if i < 0:
        print("    missing (in order): " + want)
        sys.exit(1)
    pos = i + len(want)
PY
}

# ---- 1. a scripted session ----
cat >cmds <<'CMDS'
break stepme.cu:16 block 1 thread 3
continue
print %r2
print %tid.x all
step
lanes
continue
lanes
warps
shared 0 2
break ptx:9999
breaks
delete 1
break staged
continue
break 32 thread 0
continue
async
mbarriers
warps
continue
CMDS
timeout 120 "$launcher" debug -x cmds ./stepme >session.out 2>&1
echo "exit status $?" >>session.out
cat >session.want <<'WANT'
ptxemu debug: stopped before the first instruction of kernel blocksum(int const*, int*), grid (2,1,1), block (64,1,1)
breakpoint 1 at stepme.cu:16 block (1,0,0) thread (3,0,0)
ptxemu debug: breakpoint 1 (stepme.cu:16 block (1,0,0) thread (3,0,0))
block (1,0,0) of (2,1,1), warp 0 (threads from (0,0,0)), lanes 0xffffffff run (32 of 32 alive); lane 3
stepme.cu:16  | buf[t] += buf[t + s];
%r2 (b32) of lane 3 = 0x3 (3)
[ 0] 0             [ 1] 1
[31] 31
ptxemu debug: step done
stepme.cu:17  | __syncthreads();
running:  0xffffffff (32 lanes)
converged: no open divergence region
ptxemu debug: breakpoint 1 (stepme.cu:16 block (1,0,0) thread (3,0,0))
lanes 0x0000ffff run (16 of 32 alive); lane 3
running:  0x0000ffff (16 lanes)
waiting to run: 0xffff0000 at PTX line
divergence regions, innermost last:
lanes 0xffffffff split; they rejoin at PTX line
* warp  0
  warp  1
shared 0x0: 0x000000a2          162
shared 0x4: 0x000000a4          164
breakpoint 2 at PTX line 9999
(kernel blocksum(int const*, int*) has no code there; it may stop in another kernel)
1: stepme.cu:16 block (1,0,0) thread (3,0,0) (hit 2 times)
deleted breakpoint 1
ptxemu debug: breakpoint 3 (kernel staged)
kernel staged(float const*, float*), block (0,0,0)
ptxemu debug: breakpoint 4 (line 32 thread (0,0,0))
stepme.cu:32  | bar.arrive_and_wait();
(inlined from
cp.async of 4 bytes to shared
issued by block rank 0 warp 0 lane 0 at
stepme.cu:31, PTX line
mbarrier at shared 0x0: phase of parity 0 in progress (no phase completed yet)
warp 1 polls it for
* warp  0
polls (a wait that keeps failing
blocksum: 2080 6176
staged: 1 255
exit status 0
WANT
in_order "scripted session: breakpoints with block/thread filters, print, step, lanes, shared, mbarriers, async" session.out session.want
# the same seed reaches the same stops: the session is reproducible byte for byte
timeout 120 "$launcher" debug -x cmds ./stepme >session2.out 2>&1
echo "exit status $?" >>session2.out
cmp -s session.out session2.out && ok "a session replays byte for byte" || bad "a session replays byte for byte"

# kill ends the program with status 1; -c and -b run before the input
printf 'kill\n' >killcmds
timeout 60 "$launcher" debug -b blocksum -c continue -c 'print %ctaid.x' -x killcmds ./stepme >kill.out 2>&1
echo "exit status $?" >>kill.out
printf '%s\n' '(ptxemu) break blocksum' 'breakpoint 1 at kernel blocksum' '(ptxemu) continue' \
    'ptxemu debug: breakpoint 1 (kernel blocksum)' '(ptxemu) print %ctaid.x' '%ctaid.x (u32) of lane' \
    'ptxemu debug: program ended by the debugger' 'exit status 1' >kill.want
in_order "-b/-c commands run first; kill ends the program with status 1" kill.out kill.want
grep -q "blocksum: " kill.out && bad "kill: the program went on" || ok "kill: the program did not go on"

# ---- 2. the trace ----
timeout 120 "$launcher" debug --trace --kernel blocksum --block 1 --thread 35 ./stepme >trace.out 2>trace.err
if grep -q '^blocksum: 2080 6176$' trace.out && [ -s trace.err ] &&
   ! grep -v '^trace: blocksum(int const\*, int\*) block (1,0,0) warp 1 lanes ' trace.err | grep -q . &&
   grep -q 'PTX 38 stepme.cu:11 | mov.u32 %r2, %tid.x; | lane 3: %r2=0x23 (35)$' trace.err &&
   grep -q 'st.shared.u32 \[%r3\], %r6;$' trace.err; then
    ok "trace: one record a PTX instruction, filtered by kernel/block/thread, with the lane's results"
else
    bad "trace: filtered records"; head -20 trace.err | sed 's/^/    /'
fi
timeout 120 "$launcher" debug --trace --line stepme.cu:16 --trace-file t16 ./stepme >/dev/null 2>&1
n=$(grep -c . t16 2>/dev/null || echo 0)
if [ "$n" -gt 0 ] && ! grep -v ' stepme.cu:16 | ' t16 | grep -q . &&
   grep -q 'lanes 0x0000ffff PTX [0-9]* stepme.cu:16 | ld.shared.u32' t16; then
    ok "trace: --line keeps only that source line ($n records), divergent masks shown"
else
    bad "trace: --line"; head -5 t16 2>/dev/null | sed 's/^/    /'
fi
"$launcher" debug --kernel x ./stepme >/dev/null 2>&1; [ $? = 2 ] && ok "filters without --trace are a usage error" || bad "filters without --trace"

# ---- 2b. source variables (nvcc -G): print with types and per lane, threadIdx, info
# locals/args, step into a device function, finish, next; the first stop is block 0's warp
# 0; -b alone stops first at the breakpoint; -lineinfo has lines only and says so ----
"$NVCC" -arch=sm_90 -G --cudart shared -o vars "$here/debug/vars.cu" >"$work/build.log" 2>&1 &&
"$NVCC" -arch=sm_90 -lineinfo --cudart shared -o vars_l "$here/debug/vars.cu" >>"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; echo "FAIL: build vars.cu"; exit 1; }
line_of() { grep -n -- "$1" "$here/debug/vars.cu" | head -n 1 | cut -d: -f1; }
L_call=$(line_of "float s = scale(v, p.a);")
L_r=$(line_of "float r = x \* k;")
L_out=$(line_of "if (ok) out\[i\]")
cat >vcmds <<CMDS
break vars.cu:$L_call
continue
print i
print ok all
print u
print d
print p
print n
print tile
print threadIdx
print blockIdx.x
info locals
info args
cuda lane 3
print i
print v
step
step
info locals
finish
next
info breakpoints
info cuda lanes
continue
continue
CMDS
timeout 120 "$launcher" debug -x vcmds ./vars >vsession.out 2>&1
echo "exit status $?" >>vsession.out
cat >vsession.want <<WANT
ptxemu debug: stopped before the first instruction of kernel work(float const*, float*, int, P)
block (0,0,0) of (2,1,1), warp 0 (threads from (0,0,0))
ptxemu debug: breakpoint 1 (vars.cu:$L_call)
i (int) of lane 0 = 0
ok (bool), every lane ('-' exited):
  [ 0] true          [ 1] true
u (unsigned int) of lane 0 = 7
d (double) of lane 0 = 2.5
p (struct P) of lane 0 = {a = 3, b = 0.25}
n (int) of lane 0 = 60
tile (float [32]) of lane 0 = {0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, ...}
threadIdx of lane 0 = {x = 0, y = 0, z = 0}
blockIdx.x of lane 0 = 0
  i (int) = 0
  ok (bool) = true
  u (unsigned int) = 7
  d (double) = 2.5
  v (float) = 0
  in (const float *) = 0x
  out (float *) = 0x
  n (int) = 60
  p (struct P) = {a = 3, b = 0.25}
lane 3
i (int) of lane 3 = 3
v (float) of lane 3 = 1.5
ptxemu debug: step done
vars.cu:$L_r  | float r = x * k;
  r (float) =
ptxemu debug: finish: returned from the device function
vars.cu:$L_call  | float s = scale(v, p.a);
ptxemu debug: next done
vars.cu:$L_out  | if (ok) out[i] = s + tile[(threadIdx.x + 1) % 32] + (float)d + u + p.b;
  1: vars.cu:$L_call (hit 1 time)
running:  0xffffffff (32 lanes)
ptxemu debug: breakpoint 1 (vars.cu:$L_call)
block (1,0,0) of (2,1,1), warp 0
vars: 11.25 99.25
exit status 0
WANT
in_order "source variables (-G): print with types and lanes, info locals/args, step, finish, next, first stop at warp 0" vsession.out vsession.want
if [ "$(grep -c 'ptxemu debug: breakpoint 1' vsession.out)" = 2 ]; then
    ok "returning from a call into a line with a breakpoint does not stop there again"
else
    bad "returning from a call into a line with a breakpoint does not stop there again"
fi
printf 'print s\ncontinue\n' >vcmds2
timeout 120 "$launcher" debug -b "vars.cu:$L_out" -x vcmds2 ./vars >vb.out 2>&1
if ! grep -q "stopped before the first instruction" vb.out && grep -q "^ptxemu debug: breakpoint 1 (vars.cu:$L_out)" vb.out &&
   grep -q "^s (float) of lane 0 = 1$" vb.out; then
    ok "-b alone: the first stop is the breakpoint"
else
    bad "-b alone: the first stop is the breakpoint"
    sed 's/^/    /' vb.out | head -20
fi
printf 'print i\ninfo locals\nprint threadIdx.x\ncontinue\n' >vcmds3
timeout 120 "$launcher" debug -x vcmds3 ./vars_l >vl.out 2>&1
if grep -q "print: no variable 'i' here: kernel work(float const\*, float\*, int, P) has no source variables (build with nvcc -G" vl.out &&
   grep -q "^no source variables: kernel work" vl.out && grep -q "^threadIdx.x of lane 0 = 0$" vl.out; then
    ok "-lineinfo: threadIdx works, source variables say to build with -G"
else
    bad "-lineinfo: threadIdx works, source variables say to build with -G"
    sed 's/^/    /' vl.out | head -20
fi

# ---- 3. an interactive session under tmux ----
if ! command -v tmux >/dev/null; then
    echo "SKIP: tmux is not installed: the interactive session is not tested"
else
    tmux -L "$sock" new-session -d -s dbg -x 180 -y 50 \
        "cd '$work' && '$launcher' debug ./stepme; echo PROGRAM-EXIT=\$?; sleep 60"
    screen() { tmux -L "$sock" capture-pane -p -t dbg -S -3000; }
    wait_for() {   # TEXT: wait up to 60 s for it on the screen
        for _ in $(seq 600); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
        return 1
    }
    type_line() { tmux -L "$sock" send-keys -t dbg -l -- "$1"; tmux -L "$sock" send-keys -t dbg Enter; }
    step_ok=1
    expect() { wait_for "$1" || { step_ok=0; echo "    did not see: $1"; }; }
    expect "(ptxemu)"
    type_line "break 16 block 1 lane 3"
    expect "breakpoint 1 at line 16 block (1,0,0) lane 3"
    type_line "continue"
    expect "ptxemu debug: breakpoint 1 (line 16 block (1,0,0) lane 3)"
    type_line "print %r2"
    expect "%r2 (b32) of lane 3 = 0x3 (3)"
    type_line "stepi"
    expect "ptxemu debug: stepi done"
    type_line ""   # an empty line repeats stepi
    expect "add.s32 %r11, %r9, %r10;"
    type_line "list"
    expect ">   16              buf[t] += buf[t + s];"
    type_line "delete"
    type_line "continue"
    expect "PROGRAM-EXIT=0"
    screen >tmux.out
    if [ $step_ok = 1 ] && grep -q "blocksum: 2080 6176" tmux.out; then
        ok "interactive session in tmux: break, continue, print, stepi, repeat, list"
    else
        bad "interactive session in tmux"; sed 's/^/    /' tmux.out | tail -40
    fi
fi

echo "$passes passed, $fails failed"
[ $fails = 0 ]
