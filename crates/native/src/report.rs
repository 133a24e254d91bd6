//! `cabrito report --results DIR --out DIR`: the Results view's figures and tables as a static
//! page (SVG figures, CSV tables, no script) that can be committed and hosted anywhere. The reading,
//! the numbers and the SVG are the core's (`cabrito_analysis::results`), the same code as the app's.

use super::cli::Failure;
use super::outdir::{Staged, Stream};
use super::walk;
use cabrito_analysis::results::aggregate::{all_series, Series};
use cabrito_analysis::results::input::{Problem, MAX_TEXT_BYTES};
use cabrito_analysis::results::read::Dataset;
use cabrito_analysis::results::specs::{fill_links, SpecFinder, DEFAULT_MAX_SEED};
use cabrito_analysis::results::{csv, page, page::Options};
use cabrito_gen::words::count;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub fn command() -> Command {
    Command::new("report")
        .about("Write the results' figures (SVG) and tables (CSV) as a static page, from result files of `cabrito grade` or the reference")
        .arg(Arg::new("results").long("results").required(true).action(ArgAction::Append).value_name("DIR").help("a folder of results: results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz] and summary.json (responses/ and tasks/ beside them give answers and task links); repeat for several sets"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("where index.html, figures/*.svg and tables/*.csv go"))
        .arg(Arg::new("baseline").long("baseline").value_name("DIR").help("results to compare against (set A; --results is B)"))
        .arg(Arg::new("compare").long("compare").value_name("A,B").help("the two models to compare (B − A), as model names or set:model"))
        .arg(Arg::new("title").long("title").value_name("TEXT").help("the page's title"))
        .arg(Arg::new("app").long("app").value_name("URL").help("the playground's address, to make task links absolute (e.g. https://host/cabrito/)"))
}

/// The top-level names a report folder holds (it is replaced whole; anything else in it is kept
/// safe by refusing to replace it).
const REPORT_NAMES: &[&str] = &["index.html", "tables", "figures"];

/// Open an input file, refusing one larger than the readers' cap before reading any of it.
pub fn open_input(path: &Path, rel: &str) -> Result<std::fs::File, Problem> {
    let f = std::fs::File::open(path).map_err(|e| Problem::file(rel, format!("cannot be read ({e})")))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_TEXT_BYTES {
        return Err(Problem::file(
            rel,
            format!("is {} MB, larger than the {} MB a file may hold; not read", len >> 20, MAX_TEXT_BYTES >> 20),
        ));
    }
    Ok(f)
}

/// The links a walk skipped, as problems (they are listed with the others).
pub fn skipped_links(walk: &walk::Walk) -> Vec<Problem> {
    walk.skipped.iter().map(|(rel, why)| Problem::file(rel, why.clone())).collect()
}

fn interesting(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    [".jsonl", ".jsonl.gz", ".json", ".json.gz"].iter().any(|e| l.ends_with(e))
}

/// The most bytes of results one report reads, by the files' sizes, checked before any is read.
pub const MAX_REPORT_BYTES: u64 = 2 << 30;
/// The most task results one report keeps (gzip files can hold more than their size says): memory
/// grows with them, and at this many it stays under 256 MB (BENCHMARKS.md, "Memory of report and
/// traces").
pub const MAX_REPORT_RESULTS: usize = 140_000;

/// A folder's input files, found before any is read.
pub struct Found {
    dir: PathBuf,
    walk: walk::Walk,
}

impl Found {
    fn files(&self) -> impl Iterator<Item = (String, PathBuf)> + '_ {
        self.walk.files().filter(|(rel, _)| interesting(rel))
    }
}

/// Find the input files of a folder (nothing is read yet).
pub fn find_inputs(dir: &Path) -> Result<Found, Failure> {
    if !dir.is_dir() {
        return Err(Failure::Usage(format!("{} is not a folder", dir.display())));
    }
    Ok(Found { dir: dir.to_path_buf(), walk: walk::files_under(dir, &[]) })
}

/// Read a folder's files into a new set of the dataset; returns how many were opened.
pub fn load(ds: &mut Dataset, found: Found) -> usize {
    let dir = &found.dir;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
    let name = if ds.sets.contains(&name) { format!("{name} ({})", ds.sets.len() + 1) } else { name };
    let set = ds.add_set(&name);
    ds.problems.extend(skipped_links(&found.walk));
    let mut n = 0;
    for (rel, path) in found.files() {
        match open_input(&path, &rel) {
            Ok(f) => {
                ds.add_reader(set, &rel, f);
                n += 1;
            }
            Err(p) => ds.problems.push(p),
        }
    }
    n
}

fn pick(ds: &Dataset, text: &str) -> Result<Series, String> {
    let all = all_series(ds);
    let found: Vec<&Series> = match text.split_once(':') {
        Some((set, model)) => {
            all.iter().filter(|s| ds.sets.get(s.set).is_some_and(|n| n == set) && &*s.model == model).collect()
        }
        None => all.iter().filter(|s| &*s.model == text).collect(),
    };
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!(
            "no model '{text}' in the results; the models are {}",
            all.iter().map(|s| s.name(ds)).collect::<Vec<_>>().join(", ")
        )),
        _ => Err(format!(
            "'{text}' names a model in several sets; write set:model ({})",
            found.iter().map(|s| format!("{}:{}", ds.sets[s.set], s.model)).collect::<Vec<_>>().join(", ")
        )),
    }
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));
    // Refused now, before any reading, if replacing it would lose files of the user's.
    let staged = Staged::new(&out, REPORT_NAMES).map_err(Failure::Usage)?;
    let mut folders: Vec<Found> = Vec::new();
    if let Some(b) = m.get_one::<String>("baseline") {
        folders.push(find_inputs(Path::new(b))?);
    }
    let mut loaded: Vec<(u64, u64)> = Vec::new();
    for r in m.get_many::<String>("results").into_iter().flatten() {
        // The same folder given twice (by two names) is read once.
        if let Ok(meta) = std::fs::metadata(r) {
            let id = (meta.dev(), meta.ino());
            if loaded.contains(&id) {
                eprintln!("cabrito: --results {r} names a folder given already; read once");
                continue;
            }
            loaded.push(id);
        }
        folders.push(find_inputs(Path::new(r))?);
    }
    let bytes: u64 = folders
        .iter()
        .flat_map(|f| f.files())
        .filter_map(|(_, p)| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .filter(|&len| len <= MAX_TEXT_BYTES)
        .sum();
    if bytes > MAX_REPORT_BYTES {
        return Err(Failure::Usage(format!(
            "the results hold {} MB, more than the {} MB one report reads; report on fewer models or runs at a time",
            bytes >> 20,
            MAX_REPORT_BYTES >> 20
        )));
    }
    let mut ds = Dataset::new();
    ds.lean = true;
    ds.max_records = Some(MAX_REPORT_RESULTS);
    let read: usize = folders.into_iter().map(|f| load(&mut ds, f)).sum();
    if ds.over_max {
        return Err(Failure::Usage(format!(
            "the results hold more than {MAX_REPORT_RESULTS} task results, more than one report keeps; report on fewer models or runs at a time"
        )));
    }
    if ds.records.is_empty() && ds.counts.is_empty() {
        for p in ds.problems.iter().take(10) {
            eprintln!("cabrito: {p}");
        }
        return Err(Failure::Other(format!(
            "no results found in {read} files: expected results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz] or summary.json"
        )));
    }
    let compare = match m.get_one::<String>("compare") {
        Some(c) => {
            let (a, b) =
                c.split_once(',').ok_or_else(|| Failure::Usage("--compare must be A,B (two model names)".into()))?;
            Some((pick(&ds, a.trim()).map_err(Failure::Usage)?, pick(&ds, b.trim()).map_err(Failure::Usage)?))
        }
        None if m.get_one::<String>("baseline").is_some() => {
            let all = all_series(&ds);
            let a: Vec<&Series> = all.iter().filter(|s| s.set == 0).collect();
            let b: Vec<&Series> = all.iter().filter(|s| s.set != 0).collect();
            let same: Vec<(&Series, &Series)> =
                a.iter().flat_map(|x| b.iter().filter(move |y| y.model == x.model).map(move |y| (*x, *y))).collect();
            match (same.as_slice(), a.as_slice(), b.as_slice()) {
                ([(x, y)], _, _) => Some(((*x).clone(), (*y).clone())),
                (_, [x], [y]) => Some(((*x).clone(), (*y).clone())),
                _ => {
                    eprintln!("cabrito: several models could be compared; choose two with --compare A,B");
                    None
                }
            }
        }
        None => None,
    };
    fill_links(&mut ds, &mut SpecFinder::new(DEFAULT_MAX_SEED));
    let opts = Options {
        title: m.get_one::<String>("title").cloned().unwrap_or_default(),
        compare,
        app: m.get_one::<String>("app").cloned(),
        tasks_apart: true,
    };
    // Each file is written as the page makes it (the page itself a figure at a time).
    let mut open: HashMap<String, Stream> = HashMap::new();
    let written = page::report_to(&ds, &opts, &mut |rel: &str, parts: &[&str], more: bool| {
        let mut f = match open.remove(rel) {
            Some(f) => f,
            None => staged.create(rel)?,
        };
        for part in parts {
            f.put(part)?;
        }
        if more {
            open.insert(rel.to_string(), f);
            Ok(())
        } else {
            f.finish()
        }
    })
    .map_err(Failure::Other)?;
    // The table of every task result is written a line at a time (it grows with the input).
    let mut tasks = staged.create("tables/tasks.csv").map_err(Failure::Other)?;
    for line in csv::tasks_lines(&ds, None, opts.app.as_deref().unwrap_or("")) {
        tasks.put(&line).map_err(Failure::Other)?;
    }
    tasks.finish().map_err(Failure::Other)?;
    staged.commit().map_err(Failure::Other)?;
    for p in ds.problems.iter().take(20) {
        eprintln!("cabrito: {p}");
    }
    if ds.problems.len() > 20 {
        eprintln!(
            "cabrito: … and {} more problems (listed in {})",
            ds.problems.len() - 20,
            out.join("index.html").display()
        );
    }
    println!(
        "report: {} and {} from {}, {} ({} linked to Cabrito specs); wrote {} to {}",
        count(ds.records.len(), "task result", "task results"),
        count(ds.counts.len(), "summary row", "summary rows"),
        count(read, "file", "files"),
        count(all_series(&ds).len(), "model", "models"),
        count(ds.records.iter().filter(|r| ds.link_of(r).is_some()).count(), "task", "tasks"),
        count(written + 1, "file", "files"),
        out.display()
    );
    println!("open {}", out.join("index.html").display());
    Ok(())
}
