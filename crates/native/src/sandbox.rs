//! The sandbox every Python run enters (D7): namespaces, a minimal root, a private uid, rlimits.
//!
//! Rules:
//!
//! 1. **Prepare in the parent.** [`Sandbox::prepare`] builds every string, path and limit before the
//!    fork; [`Sandbox::enter`] only reads them.
//! 2. **No allocation or lock after fork**: another thread may hold the lock.
//! 3. **Order matters**: mounts, the result fd, rlimits, the uid change, then `PR_SET_NO_NEW_PRIVS`
//!    and `PR_SET_PDEATHSIG` (the uid change clears the death signal).
//! 4. **Probe every tier** once ([`isolation`]); a refused tier is dropped with a note.
//!
//! Without root a run lacks the [`MinimalRoot`] and its own uid; [`Isolation::describe`] says so.

use super::runner::{run_raw, Limits};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

// ------------------------------------------------------------------------------------------------
// The Python installation.

/// Where the interpreter and what a run needs of it live (all real paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonLayout {
    /// The executable (resolved, not a shim).
    pub exe: PathBuf,
    /// `sys.base_prefix`.
    pub prefix: PathBuf,
    /// The standard library and its extension modules (`stdlib`, `platstdlib`).
    pub stdlib: Vec<PathBuf>,
    /// The folder of `libpython` when the interpreter links it dynamically.
    pub libdir: Option<PathBuf>,
    /// The folder numpy is imported from (the harness runs with `-S` and adds it itself).
    pub site_packages: PathBuf,
    /// Package folders that must look empty in a run (the rest of site-packages).
    pub package_dirs: Vec<PathBuf>,
}

/// What `python3 -I -S` prints about itself: one path per line (no `site`, no numpy import).
const LAYOUT_SCRIPT: &str = r#"import os, sys, sysconfig, site
r = os.path.realpath
p = sysconfig.get_paths()
shared = sysconfig.get_config_var("Py_ENABLE_SHARED")
lib = sysconfig.get_config_var("LIBDIR") if shared else ""
dirs = [p["purelib"], p["platlib"]] + list(site.getsitepackages())
found = [d for d in dirs if os.path.isfile(os.path.join(d, "numpy", "__init__.py"))]
print(r(sys.executable)); print(r(sys.base_prefix)); print(r(p["stdlib"])); print(r(p["platstdlib"]))
print(r(lib) if lib else "")
print(r(found[0]) if found else "")
print("\t".join(sorted(set(r(d) for d in dirs if os.path.isdir(d)))))
"#;

/// The interpreter to ask: `CABRITO_PYTHON`, else `python3` on `PATH`.
fn python_command() -> PathBuf {
    if let Some(p) = std::env::var_os("CABRITO_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("python3"))
}

fn parse_layout(text: &str) -> Result<PythonLayout, String> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() < 7 {
        return Err(format!("python3 described itself in {} lines, not 7", lines.len()));
    }
    let site = lines[5];
    if site.is_empty() {
        return Err("numpy is not installed for python3 (pip install numpy)".into());
    }
    let mut stdlib = vec![PathBuf::from(lines[2])];
    if lines[3] != lines[2] {
        stdlib.push(PathBuf::from(lines[3]));
    }
    Ok(PythonLayout {
        exe: PathBuf::from(lines[0]),
        prefix: PathBuf::from(lines[1]),
        stdlib,
        libdir: (!lines[4].is_empty()).then(|| PathBuf::from(lines[4])),
        site_packages: PathBuf::from(site),
        package_dirs: lines[6].split('\t').filter(|s| !s.is_empty()).map(PathBuf::from).collect(),
    })
}

fn ask_python(cmd: &Path) -> Result<PythonLayout, String> {
    let out = Command::new(cmd)
        .args(["-I", "-S", "-c", LAYOUT_SCRIPT])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} not found: {e}", cmd.display()))?;
    if !out.status.success() {
        return Err(format!("{} does not run: {}", cmd.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    parse_layout(&String::from_utf8_lossy(&out.stdout))
}

/// Seconds since the epoch of a file's last change, or 0.
fn mtime(p: &Path) -> u128 {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Where resolved layouts are kept between commands.
fn cache_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cabrito").join("python-layout.tsv"))
}

/// What decides which interpreter `cmd` starts: its file, and (for a version manager's shim) the
/// folder it is started from and the variables those managers read.
fn cache_key(cmd: &Path) -> String {
    let mut parts = vec![cmd.display().to_string(), mtime(cmd).to_string()];
    if let Ok(cwd) = std::env::current_dir() {
        parts.push(cwd.display().to_string());
    }
    for v in ["PATH", "PYENV_VERSION", "PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX"] {
        parts.push(std::env::var(v).unwrap_or_default());
    }
    let root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(root) = root {
        parts.push(mtime(&root.join("version")).to_string());
    }
    cabrito_gen::rng::hex_id(&parts.join("\u{1f}"), "python-layout", 16)
}

fn layout_line(key: &str, l: &PythonLayout) -> String {
    let dirs: Vec<String> = l.package_dirs.iter().map(|d| d.display().to_string()).collect();
    let stdlib = l.stdlib.iter().map(|d| d.display().to_string()).collect::<Vec<_>>();
    [
        key.to_string(),
        mtime(&l.exe).to_string(),
        l.exe.display().to_string(),
        l.prefix.display().to_string(),
        stdlib.first().cloned().unwrap_or_default(),
        stdlib.get(1).cloned().unwrap_or_else(|| stdlib.first().cloned().unwrap_or_default()),
        l.libdir.as_ref().map(|d| d.display().to_string()).unwrap_or_default(),
        l.site_packages.display().to_string(),
        dirs.join("\u{1e}"),
    ]
    .join("\t")
}

/// A cached layout, if its key matches and the interpreter and numpy are still where they were.
fn cached(file: &Path, key: &str) -> Option<PythonLayout> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.split('\t').next() == Some(key))?;
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 9 || mtime(Path::new(f[2])).to_string() != f[1] {
        return None;
    }
    let body = [f[2], f[3], f[4], f[5], f[6], f[7], &f[8].replace('\u{1e}', "\t")].join("\n");
    let l = parse_layout(&body).ok()?;
    l.site_packages.join("numpy").join("__init__.py").is_file().then_some(l)
}

fn remember(file: &Path, key: &str, l: &PythonLayout) {
    let mut lines: Vec<String> = std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|x| x.split('\t').next() != Some(key))
        .map(str::to_string)
        .collect();
    lines.push(layout_line(key, l));
    let keep = lines.len().saturating_sub(32);
    let text: String = lines[keep..].iter().map(|l| format!("{l}\n")).collect();
    let _ = crate::outdir::write_whole(file, text.as_bytes());
}

/// The interpreter's layout, resolved once per process. A version manager's shim (pyenv) takes
/// tens of milliseconds to pick the interpreter, so the answer is kept on disk
/// (`~/.cache/cabrito/python-layout.tsv`) under what decides it (`cache_key`).
pub fn python_layout() -> Result<&'static PythonLayout, &'static str> {
    static L: OnceLock<Result<PythonLayout, String>> = OnceLock::new();
    L.get_or_init(|| {
        let cmd = python_command();
        let key = cache_key(&cmd);
        let file = cache_file();
        if let Some(hit) = file.as_deref().and_then(|f| cached(f, &key)) {
            return Ok(hit);
        }
        let l = ask_python(&cmd)?;
        if let Some(f) = &file {
            remember(f, &key, &l);
        }
        Ok(l)
    })
    .as_ref()
    .map_err(String::as_str)
}

/// The Python installation's prefix.
pub fn python_prefix() -> &'static Path {
    python_layout().map(|l| l.prefix.as_path()).unwrap_or(Path::new("/"))
}

// ------------------------------------------------------------------------------------------------
// Isolation: what this machine allows, probed once.

/// The isolation every run gets on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isolation {
    /// The Python executable (resolved, not a shim).
    pub python: PathBuf,
    /// The folder numpy is imported from (the harness runs with `-S` and adds it itself).
    pub site_packages: String,
    pub new_uid_per_run: bool,
    pub network_namespace: bool,
    /// A private mount namespace whose root holds only what running Python needs.
    pub mount_namespace: bool,
    /// Why a stronger tier was not used, if it was not.
    pub note: String,
}

impl Isolation {
    /// One line for logs.
    pub fn describe(&self) -> String {
        let mut parts =
            vec!["each run its own process".to_string(), "own process group killed at the wall-clock limit".into()];
        parts.push("rlimits on address space, CPU, processes, file size, open files".into());
        if self.network_namespace {
            parts.push("no network (empty network namespace)".into());
        } else {
            parts.push("NETWORK NOT ISOLATED".into());
        }
        if self.mount_namespace {
            parts.push(
                "minimal read-only root (the interpreter, its standard library and shared libraries, numpy; \
                 no host files) with a private tmpfs /tmp as working dir"
                    .into(),
            );
        } else {
            parts.push("HOST FILES READABLE (no mount namespace); temporary working directory".into());
        }
        if self.new_uid_per_run {
            parts.push("fresh unprivileged uid per run (process limit enforced, leftovers killed)".into());
        } else {
            parts.push("same uid as the grader".into());
        }
        let mut s = parts.join("; ");
        if !self.note.is_empty() {
            s.push_str(&format!(" [{}]", self.note));
        }
        s
    }
}

/// What the probe runs: Python starts, numpy's folder is there, the host's files are not.
pub(crate) const PROBE: &str =
    "import os, sys\nos.stat(os.path.join(sys.argv[1], 'numpy', '__init__.py'))\nos.write(3, b'ok')\n";

/// The isolation of this machine, probed once by starting Python under each tier in turn.
pub fn isolation() -> &'static Isolation {
    static ISO: OnceLock<Isolation> = OnceLock::new();
    ISO.get_or_init(|| {
        let layout = match python_layout() {
            Ok(l) => l,
            Err(e) => {
                return Isolation {
                    python: "python3".into(),
                    site_packages: String::new(),
                    new_uid_per_run: false,
                    network_namespace: false,
                    mount_namespace: false,
                    note: e.to_string(),
                }
            }
        };
        let (python, site_packages) = (layout.exe.clone(), layout.site_packages.display().to_string());
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let mut notes = Vec::new();
        if !root {
            notes.push("not root: no namespaces or uid switch, so runs can read the host's files".to_string());
        }
        // (mount namespace, network namespace, uid per run), strongest first. A uid per run needs
        // the minimal root: the interpreter may live where other users cannot enter (/root).
        let tiers: &[(bool, bool, bool)] = if root {
            &[(true, true, true), (true, true, false), (false, true, false), (false, false, false)]
        } else {
            &[(false, false, false)]
        };
        for &(mountns, netns, uid) in tiers {
            let probe = Isolation {
                python: python.clone(),
                site_packages: site_packages.clone(),
                new_uid_per_run: uid,
                network_namespace: netns,
                mount_namespace: mountns,
                note: String::new(),
            };
            if mountns && MinimalRoot::new(layout).is_none() {
                notes.push("the minimal root cannot be described (a path holds a NUL byte)".into());
                continue;
            }
            // On the full tier the pool's zygote is started anyway: its first child, sandboxed as
            // every run is, probes the tier, so no separate interpreter is started for it.
            if mountns && netns && uid && super::pool::probe(&probe) {
                let mut iso = probe;
                iso.note = notes.join("; ");
                return iso;
            }
            let raw = run_raw(&probe, b"", PROBE, &Limits::default(), Duration::from_secs(20));
            if raw.result == b"ok" {
                let mut iso = probe;
                iso.note = notes.join("; ");
                return iso;
            }
            notes.push(format!(
                "tier (minimal root {mountns}, net ns {netns}, uid {uid}) failed: {}",
                raw.spawn_error.clone().unwrap_or_else(|| String::from_utf8_lossy(&raw.stderr)
                    .trim()
                    .chars()
                    .take(200)
                    .collect())
            ));
        }
        Isolation {
            python,
            site_packages,
            new_uid_per_run: false,
            network_namespace: false,
            mount_namespace: false,
            note: notes.join("; "),
        }
    })
}

// ------------------------------------------------------------------------------------------------
// The minimal root: prepared in the parent, built in the child.

/// One step of building the minimal root (paths are C strings, prepared before the fork).
enum Step {
    /// Create a directory (in the new root), unless a bind already brought it.
    Dir(CString),
    /// Create an empty file (a mount point for a file).
    File(CString),
    /// Bind `src` (under the old root) to `dst` read-only; devices keep their device nodes usable.
    Bind { src: CString, dst: CString, device: bool },
    /// An empty read-only tmpfs over `dst`, hiding what a bind brought there.
    Hide(CString),
    /// A symbolic link `path` → `target` (as `/lib` → `usr/lib` on merged-usr systems).
    Symlink { target: CString, path: CString },
}

/// Where the old root is seen while the new one is built.
const OLD: &str = "/oldroot";
/// Where the new root is built.
const NEW: &str = "/newroot";
/// The system's shared-library folders (bound whole, or recreated as the links they are).
const LIB_DIRS: &[&str] =
    &["/lib", "/lib64", "/lib32", "/libx32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32"];
/// Device files a program may open.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// The minimal root of a run: a tmpfs with only the interpreter, its standard library, its shared
/// libraries, numpy and a few devices bound read-only, plus a private `/tmp`.
pub struct MinimalRoot {
    steps: Vec<Step>,
    c: RootStrings,
}

/// The fixed C strings of [`MinimalRoot`]'s construction.
struct RootStrings {
    tmp: CString,
    base_opts: CString,
    root_opts: CString,
    tmp_opts: CString,
    hide_opts: CString,
    tmpfs: CString,
    root: CString,
    new: CString,
    new_old: CString,
    new_tmp: CString,
    new_shm: CString,
    dot_old: CString,
    slash_old: CString,
}

fn cs(s: &str) -> Option<CString> {
    CString::new(s).ok()
}

fn cpath(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).ok()
}

/// `p` under `base` (`/newroot` + `/usr/lib`).
fn under(base: &str, p: &Path) -> Option<CString> {
    let mut s = base.as_bytes().to_vec();
    s.extend_from_slice(p.as_os_str().as_encoded_bytes());
    CString::new(s).ok()
}

impl MinimalRoot {
    /// The plan for this interpreter, or `None` if a path cannot be passed to the kernel.
    pub fn new(l: &PythonLayout) -> Option<MinimalRoot> {
        let mut steps = Vec::new();
        let mut made: Vec<PathBuf> = vec![PathBuf::from("/")];
        // Create every missing directory on the way to `p` (inside the new root).
        fn dirs(p: &Path, made: &mut Vec<PathBuf>, steps: &mut Vec<Step>) -> Option<()> {
            let mut cur = PathBuf::from("/");
            for c in p.components().skip(1) {
                cur.push(c);
                if !made.contains(&cur) {
                    steps.push(Step::Dir(under(NEW, &cur)?));
                    made.push(cur.clone());
                }
            }
            Some(())
        }
        let mut bound: Vec<PathBuf> = Vec::new();
        let covered = |p: &Path, bound: &[PathBuf]| bound.iter().any(|b| p.starts_with(b));
        // System library folders first: links as links, folders bound whole.
        for d in LIB_DIRS {
            let p = Path::new(d);
            let Ok(meta) = std::fs::symlink_metadata(p) else { continue };
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(p).ok()?;
                dirs(p.parent()?, &mut made, &mut steps)?;
                steps.push(Step::Symlink { target: cpath(&target)?, path: under(NEW, p)? });
                made.push(p.to_path_buf());
            } else if meta.is_dir() && !covered(p, &bound) {
                dirs(p, &mut made, &mut steps)?;
                steps.push(Step::Bind { src: under(OLD, p)?, dst: under(NEW, p)?, device: false });
                bound.push(p.to_path_buf());
            }
        }
        // The interpreter: its library folders, its executable, the loader's cache.
        let mut folders: Vec<PathBuf> = l.stdlib.clone();
        folders.extend(l.libdir.clone());
        folders.sort_by_key(|p| p.components().count());
        for d in folders {
            if d.is_dir() && !covered(&d, &bound) {
                dirs(&d, &mut made, &mut steps)?;
                steps.push(Step::Bind { src: under(OLD, &d)?, dst: under(NEW, &d)?, device: false });
                bound.push(d);
            }
        }
        dirs(Path::new("/dev"), &mut made, &mut steps)?;
        let mut files: Vec<(PathBuf, bool)> = vec![(l.exe.clone(), false), ("/etc/ld.so.cache".into(), false)];
        files.extend(DEVICES.iter().map(|d| (PathBuf::from(d), true)));
        for (f, device) in files {
            if !f.exists() || covered(&f, &bound) {
                continue;
            }
            dirs(f.parent()?, &mut made, &mut steps)?;
            steps.push(Step::File(under(NEW, &f)?));
            steps.push(Step::Bind { src: under(OLD, &f)?, dst: under(NEW, &f)?, device });
        }
        // Installed packages look empty, then numpy (and its bundled libraries) come back.
        let mut hidden: Vec<PathBuf> = Vec::new();
        let mut packages = l.package_dirs.clone();
        packages.push(l.site_packages.clone());
        packages.sort_by_key(|p| p.components().count());
        for d in packages {
            if covered(&d, &bound) && !covered(&d, &hidden) && d.is_dir() {
                steps.push(Step::Hide(under(NEW, &d)?));
                hidden.push(d);
            }
        }
        for name in ["numpy", "numpy.libs"] {
            let d = l.site_packages.join(name);
            if !d.is_dir() {
                continue;
            }
            // Folders on the way that a bind already brought are skipped by the child (EEXIST).
            dirs(&d, &mut made, &mut steps)?;
            steps.push(Step::Bind { src: under(OLD, &d)?, dst: under(NEW, &d)?, device: false });
        }
        Some(MinimalRoot {
            steps,
            c: RootStrings {
                tmp: cs("/tmp")?,
                base_opts: cs("size=64k,mode=700")?,
                root_opts: cs("size=1m,mode=755")?,
                tmp_opts: cs("size=64m,mode=1777")?,
                hide_opts: cs("size=64k,mode=755")?,
                tmpfs: cs("tmpfs")?,
                root: cs("/")?,
                new: cs(NEW)?,
                new_old: cs(&format!("{NEW}/.old"))?,
                new_tmp: cs(&format!("{NEW}/tmp"))?,
                new_shm: cs(&format!("{NEW}/dev/shm"))?,
                dot_old: cs(".old")?,
                slash_old: cs("/.old")?,
            },
        })
    }

    /// The paths a run can see, for tests and logs: (bound, hidden).
    pub fn describe(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Bind { dst, .. } => Some(format!("ro {}", dst.to_string_lossy().trim_start_matches(NEW))),
                Step::Hide(d) => Some(format!("empty {}", d.to_string_lossy().trim_start_matches(NEW))),
                Step::Symlink { target, path } => Some(format!(
                    "link {} -> {}",
                    path.to_string_lossy().trim_start_matches(NEW),
                    target.to_string_lossy()
                )),
                _ => None,
            })
            .collect()
    }
}

// ------------------------------------------------------------------------------------------------
// One run's sandbox: prepared in the parent, entered in the child.

/// One `setrlimit` call: resource, soft and hard limit.
type Rlimit = (libc::__rlimit_resource_t, libc::rlim_t, libc::rlim_t);

/// Everything the child needs, prepared before the fork.
pub struct Sandbox {
    uid: Option<u32>,
    netns: bool,
    root: Option<MinimalRoot>,
    /// Prepared in the parent; the child only iterates over it.
    rlimits: Vec<Rlimit>,
    /// Die with the thread that started the process (runs); the pool's zygote instead ends when
    /// its control socket closes, since the thread that happened to start it may end first.
    death_signal: bool,
}

fn minimal_root(iso: &Isolation) -> Option<MinimalRoot> {
    if !iso.mount_namespace {
        return None;
    }
    MinimalRoot::new(python_layout().ok()?)
}

impl Sandbox {
    /// The sandbox of one run on this machine's isolation tier.
    pub fn prepare(iso: &Isolation, limits: &Limits) -> Sandbox {
        let l = |x: u64| x as libc::rlim_t;
        Sandbox {
            uid: iso.new_uid_per_run.then(next_uid),
            netns: iso.network_namespace,
            root: minimal_root(iso),
            rlimits: vec![
                (libc::RLIMIT_AS, l(limits.address_space_bytes), l(limits.address_space_bytes)),
                (libc::RLIMIT_CPU, l(limits.cpu_seconds), l(limits.cpu_seconds.saturating_add(1))),
                (libc::RLIMIT_FSIZE, l(limits.file_size_bytes), l(limits.file_size_bytes)),
                (libc::RLIMIT_NOFILE, l(limits.open_files), l(limits.open_files)),
                (libc::RLIMIT_NPROC, l(limits.processes), l(limits.processes)),
                (libc::RLIMIT_CORE, 0, 0),
            ],
            death_signal: true,
        }
    }

    /// The sandbox of the pool's zygote (`native::pool`): the namespaces and minimal root of a run
    /// (no network, nothing of the host but the interpreter and numpy, private `/tmp`), but root,
    /// without rlimits other than no core files and without a death signal, since it forks the
    /// runs and each child enters its own sandbox (new namespaces, uid, rlimits) itself. `None`
    /// unless this machine's tier has every namespace and a uid per run.
    pub fn prepare_zygote(iso: &Isolation) -> Option<Sandbox> {
        if !(iso.mount_namespace && iso.network_namespace && iso.new_uid_per_run) {
            return None;
        }
        Some(Sandbox {
            uid: None,
            netns: true,
            root: Some(minimal_root(iso)?),
            rlimits: vec![(libc::RLIMIT_CORE, 0, 0)],
            death_signal: false,
        })
    }

    /// The run's private uid, if it has one (kill its leftovers with [`kill_uid`] afterwards).
    pub fn uid(&self) -> Option<u32> {
        self.uid
    }

    /// Whether the run gets a private `/tmp` as its working directory (else the runner makes one).
    pub fn has_private_tmp(&self) -> bool {
        self.root.is_some()
    }

    /// Enter the sandbox. Runs in the child between fork and exec: see the rules at the top of this
    /// module (no allocation; async-signal-safe calls only). `result_fd` becomes fd 3.
    pub fn enter(&self, result_fd: libc::c_int) -> std::io::Result<()> {
        // SAFETY: every pointer passed below comes from a CString (or a C string literal) prepared
        // in the parent and alive for the whole call; the calls are async-signal-safe.
        unsafe {
            if self.netns {
                check(libc::unshare(libc::CLONE_NEWNET))?;
            }
            if let Some(r) = &self.root {
                enter_root(r)?;
            }
            if libc::dup2(result_fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            for &(resource, soft, hard) in &self.rlimits {
                let r = libc::rlimit { rlim_cur: soft, rlim_max: hard };
                check(libc::setrlimit(resource, &r))?;
            }
            if let Some(uid) = self.uid {
                check(libc::setgroups(0, std::ptr::null()))?;
                check(libc::setgid(uid))?;
                check(libc::setuid(uid))?;
            }
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            // After the uid change (which clears it): die with the grader thread that started us.
            if self.death_signal {
                check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
            }
        }
        Ok(())
    }
}

fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Mount a tmpfs (in the child: no allocation).
///
/// # Safety
/// C strings prepared in the parent; only between fork and exec.
unsafe fn tmpfs(c: &RootStrings, target: &CStr, opts: &CStr) -> std::io::Result<()> {
    check(libc::mount(
        c.tmpfs.as_ptr(),
        target.as_ptr(),
        c.tmpfs.as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV,
        opts.as_ptr().cast(),
    ))
}

/// Make the mount at `target` read-only (a bind remount changes only this mount's flags).
///
/// # Safety
/// As [`tmpfs`].
unsafe fn read_only(target: &CStr, device: bool) -> std::io::Result<()> {
    let nodev = if device { 0 } else { libc::MS_NODEV };
    check(libc::mount(
        std::ptr::null(),
        target.as_ptr(),
        std::ptr::null(),
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | nodev,
        std::ptr::null(),
    ))
}

/// # Safety
/// As [`tmpfs`].
unsafe fn pivot(new_root: &CStr, put_old: &CStr) -> std::io::Result<()> {
    if libc::syscall(libc::SYS_pivot_root, new_root.as_ptr(), put_old.as_ptr()) != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Build the minimal root and move into it (in the child: no allocation).
///
/// A tmpfs over `/tmp` becomes a scratch root (the old root seen at `/oldroot`, so nothing is
/// hidden from the binds), the new root is built at `/newroot` and pivoted into, and the old one
/// detached, so no path leads back to the host.
///
/// # Safety
/// Only between fork and exec, in a child that may change its own mounts.
unsafe fn enter_root(r: &MinimalRoot) -> std::io::Result<()> {
    let c = &r.c;
    let null = std::ptr::null();
    check(libc::unshare(libc::CLONE_NEWNS))?;
    check(libc::mount(null, c.root.as_ptr(), null, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()))?;
    tmpfs(c, &c.tmp, &c.base_opts)?;
    check(libc::chdir(c.tmp.as_ptr()))?;
    check(libc::mkdir(c"oldroot".as_ptr(), 0o700))?;
    check(libc::mkdir(c"newroot".as_ptr(), 0o700))?;
    pivot(c".", c"oldroot")?;
    check(libc::chdir(c.root.as_ptr()))?;
    tmpfs(c, &c.new, &c.root_opts)?;
    for s in &r.steps {
        match s {
            Step::Dir(d) => {
                if libc::mkdir(d.as_ptr(), 0o755) != 0 && *libc::__errno_location() != libc::EEXIST {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Step::File(f) => {
                let fd = libc::open(f.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
            }
            Step::Bind { src, dst, device } => {
                check(libc::mount(src.as_ptr(), dst.as_ptr(), null, libc::MS_BIND | libc::MS_REC, std::ptr::null()))?;
                read_only(dst, *device)?;
            }
            Step::Hide(d) => tmpfs(c, d, &c.hide_opts)?,
            Step::Symlink { target, path } => check(libc::symlink(target.as_ptr(), path.as_ptr()))?,
        }
    }
    // Hidden folders were left writable for numpy's mount points; now they are read-only too.
    for s in &r.steps {
        if let Step::Hide(d) = s {
            read_only(d, false)?;
        }
    }
    check(libc::mkdir(c.new_tmp.as_ptr(), 0o1777))?;
    tmpfs(c, &c.new_tmp, &c.tmp_opts)?;
    // Shared memory (Python's multiprocessing looks for it): private and empty, like /tmp.
    if libc::mkdir(c.new_shm.as_ptr(), 0o1777) != 0 && *libc::__errno_location() != libc::EEXIST {
        return Err(std::io::Error::last_os_error());
    }
    tmpfs(c, &c.new_shm, &c.tmp_opts)?;
    check(libc::mkdir(c.new_old.as_ptr(), 0o700))?;
    check(libc::chdir(c.new.as_ptr()))?;
    pivot(c".", &c.dot_old)?;
    check(libc::chdir(c.root.as_ptr()))?;
    check(libc::umount2(c.slash_old.as_ptr(), libc::MNT_DETACH))?;
    check(libc::rmdir(c.slash_old.as_ptr()))?;
    read_only(&c.root, false)?;
    check(libc::chdir(c.tmp.as_ptr()))?;
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Private uids.

/// A fresh unprivileged uid for a run: `1_000_000 + (pid & 0x7FFF) << 10 + counter` (1024 per
/// grader process before reuse; `tests/worker_common` relies on this layout to find leftovers).
pub fn next_uid() -> u32 {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let c = COUNTER.fetch_add(1, Ordering::Relaxed) & 0x3FF;
    1_000_000 + ((std::process::id() & 0x7FFF) << 10) + c
}

/// Kill every process of a run's private uid (they may have left the process group).
pub fn kill_uid(uid: u32) {
    // SAFETY: the child only calls async-signal-safe functions and exits with _exit.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            if libc::setgid(uid) == 0 && libc::setuid(uid) == 0 {
                libc::kill(-1, libc::SIGKILL);
            }
            libc::_exit(0);
        } else if pid > 0 {
            let mut st = 0;
            libc::waitpid(pid, &mut st, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(dir: &Path) -> PythonLayout {
        let site = dir.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("numpy")).unwrap();
        std::fs::write(site.join("numpy/__init__.py"), "").unwrap();
        let exe = dir.join("python3.11");
        std::fs::write(&exe, "").unwrap();
        PythonLayout {
            exe,
            prefix: dir.to_path_buf(),
            stdlib: vec![dir.join("lib/python3.11"), dir.join("lib/python3.11/lib-dynload")],
            libdir: Some(dir.join("lib")),
            site_packages: site.clone(),
            package_dirs: vec![site, dir.join("other")],
        }
    }

    /// A remembered layout reads back the same under its key, and is dropped once the interpreter
    /// changes or numpy is gone.
    #[test]
    fn the_layout_cache_round_trips_and_goes_stale() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let file = dir.path().join("cache/python-layout.tsv");
        remember(&file, "k1", &l);
        remember(&file, "k2", &PythonLayout { libdir: None, ..l.clone() });
        assert_eq!(cached(&file, "k1"), Some(l.clone()));
        assert_eq!(cached(&file, "k2").unwrap().libdir, None);
        assert_eq!(cached(&file, "k3"), None);
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&l.exe, "changed").unwrap();
        assert_eq!(cached(&file, "k1"), None, "a changed interpreter is asked again");
        remember(&file, "k1", &l);
        std::fs::remove_file(l.site_packages.join("numpy/__init__.py")).unwrap();
        assert_eq!(cached(&file, "k1"), None, "numpy gone");
    }

    /// The plan binds the interpreter, hides installed packages and brings numpy back after them.
    #[test]
    fn the_minimal_root_binds_the_interpreter_and_only_numpy_of_the_packages() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        std::fs::create_dir_all(dir.path().join("lib/python3.11/lib-dynload")).unwrap();
        let plan = MinimalRoot::new(&l).unwrap().describe();
        let d = dir.path().display().to_string();
        let at = |line: &str| plan.iter().position(|p| p == line).unwrap_or_else(|| panic!("{line} in {plan:?}"));
        let lib = at(&format!("ro {d}/lib"));
        let exe = at(&format!("ro {d}/python3.11"));
        let hide = at(&format!("empty {d}/lib/python3.11/site-packages"));
        let numpy = at(&format!("ro {d}/lib/python3.11/site-packages/numpy"));
        assert!(lib < hide && exe < numpy && hide < numpy, "{plan:?}");
        assert!(!plan.iter().any(|p| p.contains("lib-dynload")), "covered by lib: {plan:?}");
        // A folder outside every bound one is not hidden (nothing brought it there).
        assert!(!plan.iter().any(|p| p.ends_with("/other")), "{plan:?}");
        assert!(plan.iter().any(|p| p == "ro /dev/null"), "{plan:?}");
        assert!(!plan.iter().any(|p| p.contains("/etc/passwd") || p.contains("/work") || p.contains("/home")));
    }
}
