// `hearth record` and `hearth sched` over a set of processes: record --children -p PARENT on
// tree_target (a parent, two single-threaded children, a multi-threaded one) gives a report whose
// stacks, threads table and scheduler charts put each thread under its process, name the two
// children that rewrote their titles by those titles (the long one shortened, in full in the
// hover), and leaves no process traced; sched --comm selects by title at the start; selections that
// match nothing are one line. Needs root (ptrace, tracefs).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/hearth_cli.h"
#include "tests/integration/tree_support.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using hearth::testing_support::exited_with;
using hearth::testing_support::fresh_dir;
using hearth::testing_support::HearthRun;
using hearth::testing_support::run_hearth;
using hearth::testing_support::slurp;
using hearth::testing_support::split;
using hearth::testing_support::start_hearth;
using namespace hearth::testing_support::tree;

// The threads table's rows: the cells' text of each <tr> of <table class="threads">'s body, tags
// dropped.
std::vector<std::vector<std::string>> table_rows(const std::string& html) {
  std::vector<std::vector<std::string>> rows;
  size_t at = html.find("<table class=\"threads\">");
  const size_t end = html.find("</table>", at);
  if (at == std::string::npos || end == std::string::npos) return rows;
  at = html.find("<tbody>", at);
  for (size_t tr = html.find("<tr>", at); tr != std::string::npos && tr < end;
       tr = html.find("<tr>", tr + 1)) {
    std::vector<std::string> cells;
    const size_t tr_end = html.find("</tr>", tr);
    for (size_t td = html.find("<td", tr); td != std::string::npos && td < tr_end;
         td = html.find("<td", td + 1)) {
      const size_t open = html.find('>', td) + 1;
      const size_t close = html.find("</td>", open);
      std::string text;
      bool in_tag = false;
      for (char c : html.substr(open, close - open)) {
        if (c == '<') in_tag = true;
        if (!in_tag) text += c;
        if (c == '>') in_tag = false;
      }
      cells.push_back(text);
    }
    rows.push_back(cells);
  }
  return rows;
}

class RecordSet : public ::testing::TestWithParam<std::string> {};

// record --children -p PARENT: every process of the tree recorded, each thread under its process
// (stacks.folded, the threads table, the scheduler charts), nothing left traced.
TEST_P(RecordSet, ChildrenGroupedByProcess) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  ASSERT_EQ(t.pool_threads.size(), 2u);
  const pid_t parent = t.target->pid();
  const fs::path dir = fresh_dir("hearth-set-children-" + GetParam());
  HearthRun r = run_hearth({"record", "-p", std::to_string(parent), "--children", "-d", "3", "-F",
                            "20", "--method", GetParam(), "--no-mmv", "-o", dir.string()});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  for (pid_t p : {parent, t.alpha, t.titled, t.pool}) EXPECT_TRUE(untraced(p)) << p;

  json meta = json::parse(slurp((dir / "report.json").string()), nullptr, false);
  ASSERT_TRUE(meta.is_object());
  EXPECT_EQ(meta["target"]["pid"], parent);
  EXPECT_EQ(meta["target"]["comm"], "tree_target-fp");
  std::set<pid_t> listed;
  for (const json& p : meta["target"]["processes"]) listed.insert(p["pid"].get<pid_t>());
  EXPECT_EQ(listed, (std::set<pid_t>{parent, t.alpha, t.titled, t.pool})) << meta.dump(2);
  EXPECT_EQ(meta["target"]["selection"]["children"], true);
  const json& st = meta["collectors"]["stacks"];
  EXPECT_EQ(st["status"], "ok") << meta.dump(2);
  EXPECT_EQ(st["processes"], 4) << st.dump(2);
  EXPECT_EQ(st["method"], GetParam());
  EXPECT_EQ(meta["collectors"]["sched"]["status"], "ok") << meta.dump(2);

  // stacks.folded: each process under its own root, the pool's threads under it.
  const std::vector<std::string> stacks = stacks_of(slurp((dir / "stacks.folded").string()));
  const std::string comm = "tree_target-fp";
  auto root = [](const std::string& name, pid_t pid) {
    return "[" + name + " pid=" + std::to_string(pid) + "]";
  };
  EXPECT_TRUE(has_stack(stacks, root(comm, parent), "parent_wait"));
  EXPECT_TRUE(has_stack(stacks, root(comm, t.alpha), "alpha_wait"));
  EXPECT_TRUE(has_stack(stacks, root("titled-child", t.titled), "titled_wait"));
  for (pid_t tid : t.pool_threads) {
    EXPECT_TRUE(has_stack(
        stacks,
        root(comm, t.pool) + ";[" + comm + ":pool_thread_wait tid=" + std::to_string(tid) + "]",
        "pool_thread_wait"))
        << tid;
  }

  // The threads table: a process column; every thread under its process, each process's rows
  // together; the scheduler's times on the children's rows (it recorded them too).
  const std::string html = slurp((dir / "index.html").string());
  EXPECT_NE(html.find("<th>process</th><th>thread</th>"), std::string::npos);
  EXPECT_NE(html.find("tree_target-fp (pid " + std::to_string(parent) + ") and 3 other processes"),
            std::string::npos);
  std::map<std::string, std::string> process_of;  // tid -> process cell
  std::vector<std::string> order;                 // process cells, row by row
  for (const std::vector<std::string>& row : table_rows(html)) {
    ASSERT_GE(row.size(), 5u);
    process_of[row[2]] = row[0];
    order.push_back(row[0]);
    if (row[2] == std::to_string(t.alpha) || row[2] == std::to_string(t.titled)) {
      EXPECT_FALSE(row[4].empty()) << "no scheduler times for " << row[2];
    }
  }
  auto in = [](const std::string& name, pid_t pid) { return name + " " + std::to_string(pid); };
  // The parent and alpha by their command line (the program without its directory, then its
  // argument), which says more than their comm: 51 characters, shortened to its start and its end.
  const std::string argv_label = "tree_target-fp\xe2\x80\xa6le-0123456789";
  EXPECT_EQ(process_of[std::to_string(parent)], in(argv_label, parent)) << html;
  EXPECT_EQ(process_of[std::to_string(t.alpha)], in(argv_label, t.alpha));
  // The children that rewrote their titles are named by them; the pool's, longer than 40
  // characters, shortened (its start, "…", its last word), in full in the cell's hover.
  const std::string titled = "tree-titled: worker waiting";
  const std::string pool_title = "tree-pool: 2 threads waiting, nobody notifies";
  const std::string pool_label = "tree-pool: 2 threads waiting,\xe2\x80\xa6 notifies";
  EXPECT_EQ(process_of[std::to_string(t.titled)], in(titled, t.titled));
  EXPECT_EQ(process_of[std::to_string(t.pool)], in(pool_label, t.pool));
  for (pid_t tid : t.pool_threads)
    EXPECT_EQ(process_of[std::to_string(tid)], in(pool_label, t.pool));
  EXPECT_NE(html.find("<td title=\"" + pool_title + "\">"), std::string::npos);
  // Where the titles are kept: the samples' `# process` lines (stacks.folded keeps the comm).
  const std::string samples = slurp((dir / "stacks.samples.txt").string());
  EXPECT_TRUE(samples.starts_with("# hearth samples 2\t")) << samples.substr(0, 200);
  EXPECT_NE(samples.find("# process\tpid=" + std::to_string(t.titled) +
                         "\tname=titled-child\ttitle=" + titled + "\n"),
            std::string::npos);
  EXPECT_NE(samples.find("# process\tpid=" + std::to_string(t.pool) + "\tname=" + comm +
                         "\ttitle=" + pool_title + "\n"),
            std::string::npos);
  std::set<std::string> done;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && order[i] != order[i - 1]) done.insert(order[i - 1]);
    EXPECT_EQ(done.count(order[i]), 0u) << order[i] << "'s rows are not together";
  }
  // The scheduler charts name the pool's threads with their process.
  // With its title: every picture names the titled processes so.
  const std::string svg = slurp((dir / "sched.svg").string());
  EXPECT_NE(svg.find(in(pool_label, t.pool) + ": " + comm + ":pool_thread_wait"),
            std::string::npos);
  EXPECT_NE(svg.find(in(titled, t.titled)), std::string::npos);
  EXPECT_EQ(svg.find(in("titled-child", t.titled)), std::string::npos);
  // The flamegraph's process roots (in full: it cuts a frame's text to its width), the
  // heatmap's and the timeline's.
  const std::string flame = slurp((dir / "flame.svg").string());
  EXPECT_NE(flame.find("[" + titled + " pid=" + std::to_string(t.titled) + "]"), std::string::npos);
  EXPECT_NE(flame.find("[" + pool_title + " pid=" + std::to_string(t.pool) + "]"),
            std::string::npos);
  const std::string heat = slurp((dir / "heat.html").string());
  EXPECT_NE(heat.find(titled + " pid=" + std::to_string(t.titled)), std::string::npos);
  const std::string timeline = slurp((dir / "timeline.svg").string());
  EXPECT_NE(timeline.find(pool_label + " (pid " + std::to_string(t.pool) + "), 3 threads"),
            std::string::npos);
  EXPECT_NE(timeline.find(pool_title + " (pid " + std::to_string(t.pool) + ")"), std::string::npos);
  EXPECT_NE(timeline.find(titled + " (pid " + std::to_string(t.titled) + ")"), std::string::npos);
  const std::string timeline_page = slurp((dir / "timeline.html").string());
  EXPECT_NE(timeline_page.find(pool_title), std::string::npos);
}

// The window ends when every process has exited, not when the first one does: alpha's exit (the
// first -p) leaves the run going; the whole tree's exit ends it long before its 60 s.
TEST_P(RecordSet, WindowEndsWhenEveryProcessHasExited) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  const pid_t parent = t.target->pid();
  const fs::path dir = fresh_dir("hearth-set-ends-" + GetParam());
  fs::create_directories(dir);
  const std::string err = (dir / "record.err").string();
  const fs::path rec = dir / "rec";
  // alpha first: the run's "target", and the first process to exit.
  pid_t hearth = start_hearth(
      {"record", "-p", std::to_string(t.alpha), "-p", std::to_string(parent), "--children", "-d",
       "60", "-F", "20", "--method", GetParam(), "--no-mmv", "-o", rec.string()},
      err);
  ASSERT_TRUE(holds(hearth, GetParam(), {parent, t.alpha, t.titled, t.pool}));
  ASSERT_EQ(::write(t.target->stdin_fd(), "exit\n", 5), 5);
  auto exited_line = t.target->read_line(20s);
  ASSERT_TRUE(exited_line);
  EXPECT_EQ(*exited_line, "exited " + std::to_string(t.alpha));
  // A run that ended with the first exit would be over well within this.
  std::this_thread::sleep_for(1500ms);
  int status = 0;
  EXPECT_EQ(waitpid(hearth, &status, WNOHANG), 0) << slurp(err);
  t.target->close_stdin();  // the parent kills its children, reaps them and exits
  pid_t done = 0;
  for (int i = 0; i < 500 && (done = waitpid(hearth, &status, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(100ms);
  if (done == 0) {  // still running after 50 s: the tree's exit did not end the window
    kill(hearth, SIGKILL);
    waitpid(hearth, &status, 0);
    FAIL() << slurp(err);
  }
  const std::string errors = slurp(err);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << errors;
  EXPECT_NE(errors.find("hearth record: every selected process exited: writing the report"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("process " + std::to_string(t.alpha) + " (tree_target-fp) exited after"),
            std::string::npos)
      << errors;
  json meta = json::parse(slurp((rec / "report.json").string()), nullptr, false);
  ASSERT_TRUE(meta.is_object());
  EXPECT_EQ(meta["target_exited"], true);
  EXPECT_LT(meta["window_s"].get<double>(), 59.0);
  EXPECT_EQ(meta["collectors"]["stacks"]["status"], "ok") << meta.dump(2);
  EXPECT_GE(meta["collectors"]["stacks"]["processes_exited"].get<int>(), 1) << meta.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Methods, RecordSet, ::testing::Values("bpf", "ptrace"));

// A selection that matches nothing: one line, exit 2, no report directory.
TEST(RecordSelection, NothingMatchesIsOneLine) {
  const fs::path dir = fresh_dir("hearth-set-nothing");
  HearthRun r = run_hearth(
      {"record", "--comm", "^no-such-process-name-[0-9]{12}$", "-d", "1", "-o", dir.string()});
  EXPECT_TRUE(exited_with(r, 2)) << r.err;
  EXPECT_EQ(r.err,
            "hearth record: no process matches --comm ^no-such-process-name-[0-9]{12}$ "
            "(its name or its title, as ps shows them)\n");
  EXPECT_FALSE(fs::exists(dir));
}

// sched --comm: the process whose title matches, and no other process of the tree.
TEST(SchedSet, CommSelectsByTitle) {
  Tree t = start_tree();
  ASSERT_TRUE(t.target);
  const fs::path dir = fresh_dir("hearth-set-sched-comm");
  HearthRun r =
      run_hearth({"sched", "--comm", "^tree-titled: worker", "-d", "1", "-o", dir.string()});
  ASSERT_TRUE(exited_with(r, 0)) << r.err;
  const std::string states = slurp((dir / "sched.states.tsv").string());
  EXPECT_NE(states.find("# target\tpid=" + std::to_string(t.titled) + "\tcomm=titled-child"),
            std::string::npos)
      << states;
  size_t rows = 0;
  for (const std::string& line : split(states, '\n')) {
    if (line.empty() || line[0] == '#' || line.rfind("tid\t", 0) == 0) continue;
    ++rows;
    EXPECT_EQ(split(line, '\t').at(2), std::to_string(t.titled)) << line;
  }
  EXPECT_GE(rows, 1u) << states;

  HearthRun none = run_hearth({"sched", "--comm", "^no-such-process-name-[0-9]{12}$", "-d", "1",
                               "-o", fresh_dir("hearth-set-sched-none").string()});
  EXPECT_TRUE(exited_with(none, 2)) << none.err;
  EXPECT_EQ(none.err,
            "hearth sched: no process matches --comm ^no-such-process-name-[0-9]{12}$ "
            "(its name or its title, as ps shows them)\n");
  HearthRun both = run_hearth(
      {"sched", "--comm", "x", "-a", "-d", "1", "-o", fresh_dir("hearth-set-sched-both").string()});
  EXPECT_TRUE(exited_with(both, 2)) << both.err;
  EXPECT_NE(both.err.find("--comm and -a exclude each other"), std::string::npos) << both.err;
}

}  // namespace
