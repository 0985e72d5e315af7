// Writes a deterministic synthetic profile in folded format, big enough to time the script:
// node synth.mjs [STACKS] > big.folded. 1,700 stacks give about 25,000 frames at 1200 px.
// C++-like names (templates, parameter lists, anonymous namespaces), thread roots, depth <= 60.
const stacks = Number(process.argv[2] || 1700);
let seed = 42;
function rand() {
  // xorshift32: the same output on every machine
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const ns = ["hearth", "std", "boost::asio", "(anonymous namespace)", "folly", "absl", "net::http"];
const cls = ["Pool", "Scheduler", "Parser", "Reader", "Encoder", "Session", "Table", "Index", "Arena"];
const fn = ["run", "step", "parse", "read_some", "encode", "flush", "lookup", "insert", "poll", "wait"];
const targs = ["", "<int>", "<std::string>", "<std::vector<int, std::allocator<int> > >",
  "<std::function<void (int)>, 4ul>", "<char, std::char_traits<char> >"];
const params = ["()", "(int)", "(std::string_view)", "(unsigned char const*, unsigned long)",
  "(std::unique_ptr<Task, std::default_delete<Task> >&&)", "(Context&, std::chrono::nanoseconds)"];
const names = [];
for (let i = 0; i < 400; i++) {
  names.push(`${pick(ns)}::${pick(cls)}${pick(targs)}::${pick(fn)}_${i}${pick(params)}`);
}
const leaves = ["memcpy", "malloc", "free", "__lll_lock_wait", "futex_wait_queue", "read", "write",
  "epoll_wait", "[unknown]", "crc32_combine"];
const threads = ["[worker-1 tid=101]", "[worker-2 tid=102]", "[worker-3 tid=103]",
  "[io-1 tid=201]", "[io-2 tid=202]", "[main tid=100]"];
const out = [];
for (let s = 0; s < stacks; s++) {
  const t = Math.floor(rand() * rand() * threads.length);
  const frames = [threads[t], "start_thread"];
  // Stacks share prefixes: each level picks from few choices near the root, many deeper down.
  const depth = 4 + Math.floor(rand() * rand() * 56);
  let h = t;
  for (let d = 0; d < depth; d++) {
    const choices = Math.min(2 + d * 2, 40);
    h = (h * 31 + Math.floor(rand() * rand() * choices) + 1) % names.length;
    frames.push(names[h]);
  }
  frames.push(pick(leaves));
  out.push(`${frames.join(";")} ${50 + Math.floor(rand() * 400)}`);
}
process.stdout.write(out.join("\n") + "\n");
