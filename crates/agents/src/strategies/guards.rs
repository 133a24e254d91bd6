//! Working out which branch runs, from what the strategy read: a small interpreter for the helper
//! functions a body's `if` conditions call (the integers, loops over `range`, `if`/`else`,
//! assignments, arithmetic, comparisons and `return` such a helper is written with), run on the
//! condition's literal arguments. Every constant comes from the text the tools showed: the helper's
//! own source (parsed with the checks' Python front end) and the condition's call. A helper written
//! with anything else, or one that runs longer than the strategy's patience (its budget of
//! statements), gives no answer, and the strategy has to guess.

use cabrito_check::program::Program;
use num_bigint::BigInt;
use ruff_python_ast::{BoolOp, CmpOp, Expr, Number, Operator, Stmt, UnaryOp};
use std::collections::BTreeMap;

/// Statements a careful strategy is willing to run to settle one condition.
pub const PATIENT: u64 = 20_000_000;

/// A value of the interpreted subset.
#[derive(Clone, Debug, PartialEq, Eq)]
enum V {
    I(BigInt),
    B(bool),
}

impl V {
    fn int(&self) -> BigInt {
        match self {
            V::I(i) => i.clone(),
            V::B(b) => BigInt::from(u8::from(*b)),
        }
    }
    fn truth(&self) -> bool {
        match self {
            V::I(i) => *i != BigInt::from(0),
            V::B(b) => *b,
        }
    }
}

/// A helper function the strategy has read whole.
#[derive(Clone, Debug)]
struct Helper {
    params: Vec<String>,
    body: Vec<Stmt>,
}

/// The helpers a strategy can run, and its patience.
#[derive(Clone, Debug)]
pub struct Judge {
    helpers: BTreeMap<String, Helper>,
    budget: u64,
}

enum Flow {
    Next,
    Return(V),
}

struct Run<'j> {
    judge: &'j Judge,
    left: u64,
    depth: u32,
}

fn floor_divmod(a: &BigInt, b: &BigInt) -> Option<(BigInt, BigInt)> {
    let zero = BigInt::from(0);
    if *b == zero {
        return None;
    }
    let (mut q, mut r) = (a / b, a % b);
    if r != zero && ((r < zero) != (*b < zero)) {
        q -= 1;
        r += b;
    }
    Some((q, r))
}

impl Judge {
    /// A judge with no helpers yet and a budget of statements per condition.
    pub fn new(budget: u64) -> Judge {
        Judge { helpers: BTreeMap::new(), budget }
    }

    /// Learn a helper from its source (a `def` seen whole). False when it is not one function.
    pub fn learn(&mut self, source: &str) -> bool {
        let Ok(program) = Program::parse(source) else { return false };
        let [Stmt::FunctionDef(f)] = program.body() else { return false };
        let params = f.parameters.iter().map(|p| p.name().to_string()).collect();
        self.helpers.insert(f.name.to_string(), Helper { params, body: f.body.to_vec() });
        true
    }

    /// The value of a condition given as source (`check(1, 3, 5, 0, num_steps=4) ^ …`).
    pub fn decide_source(&self, condition: &str) -> Option<bool> {
        let text = format!("if {condition}:\n    pass\n");
        let program = Program::parse(&text).ok()?;
        let [Stmt::If(i)] = program.body() else { return None };
        self.decide(&i.test)
    }

    /// The value of a condition, when every helper it calls is known and it runs within budget.
    pub fn decide(&self, test: &Expr) -> Option<bool> {
        let mut run = Run { judge: self, left: self.budget, depth: 0 };
        run.eval(test, &BTreeMap::new()).map(|v| v.truth())
    }
}

impl Run<'_> {
    fn tick(&mut self) -> Option<()> {
        self.left = self.left.checked_sub(1)?;
        Some(())
    }

    fn call(&mut self, name: &str, args: Vec<V>, kwargs: Vec<(String, V)>) -> Option<V> {
        let h = self.judge.helpers.get(name)?;
        if args.len() > h.params.len() || self.depth > 50 {
            return None;
        }
        let mut env: BTreeMap<String, V> = h.params.iter().cloned().zip(args).collect();
        for (k, v) in kwargs {
            if !h.params.contains(&k) || env.insert(k, v).is_some() {
                return None;
            }
        }
        if env.len() != h.params.len() {
            return None;
        }
        self.depth += 1;
        let flow = self.block(&h.body, &mut env);
        self.depth -= 1;
        match flow? {
            Flow::Return(v) => Some(v),
            Flow::Next => None,
        }
    }

    fn block(&mut self, body: &[Stmt], env: &mut BTreeMap<String, V>) -> Option<Flow> {
        for s in body {
            if let Flow::Return(v) = self.stmt(s, env)? {
                return Some(Flow::Return(v));
            }
        }
        Some(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt, env: &mut BTreeMap<String, V>) -> Option<Flow> {
        self.tick()?;
        match s {
            Stmt::Pass(_) => Some(Flow::Next),
            Stmt::Return(r) => Some(Flow::Return(self.eval(r.value.as_deref()?, env)?)),
            Stmt::Assign(a) => {
                let [Expr::Name(t)] = a.targets.as_slice() else { return None };
                let v = self.eval(&a.value, env)?;
                env.insert(t.id.to_string(), v);
                Some(Flow::Next)
            }
            Stmt::AugAssign(a) => {
                let Expr::Name(t) = &*a.target else { return None };
                let old = env.get(t.id.as_str())?.clone();
                let v = self.eval(&a.value, env)?;
                let new = self.binop(a.op, old, v)?;
                env.insert(t.id.to_string(), new);
                Some(Flow::Next)
            }
            Stmt::If(i) => {
                if self.eval(&i.test, env)?.truth() {
                    return self.block(&i.body, env);
                }
                for c in &i.elif_else_clauses {
                    match &c.test {
                        Some(t) if !self.eval(t, env)?.truth() => continue,
                        _ => return self.block(&c.body, env),
                    }
                }
                Some(Flow::Next)
            }
            Stmt::For(f) => {
                let Expr::Name(target) = &*f.target else { return None };
                let Expr::Call(c) = &*f.iter else { return None };
                let Expr::Name(r) = &*c.func else { return None };
                if r.id.as_str() != "range" || !c.arguments.keywords.is_empty() || !f.orelse.is_empty() {
                    return None;
                }
                let bounds: Vec<BigInt> =
                    c.arguments.args.iter().map(|a| self.eval(a, env).map(|v| v.int())).collect::<Option<_>>()?;
                let (start, stop) = match bounds.as_slice() {
                    [stop] => (BigInt::from(0), stop.clone()),
                    [start, stop] => (start.clone(), stop.clone()),
                    _ => return None,
                };
                let mut k = start;
                while k < stop {
                    self.tick()?;
                    env.insert(target.id.to_string(), V::I(k.clone()));
                    if let Flow::Return(v) = self.block(&f.body, env)? {
                        return Some(Flow::Return(v));
                    }
                    k += 1;
                }
                Some(Flow::Next)
            }
            _ => None,
        }
    }

    fn binop(&mut self, op: Operator, l: V, r: V) -> Option<V> {
        if let (V::B(a), V::B(b)) = (&l, &r) {
            match op {
                Operator::BitXor => return Some(V::B(a ^ b)),
                Operator::BitAnd => return Some(V::B(a & b)),
                Operator::BitOr => return Some(V::B(a | b)),
                _ => {}
            }
        }
        let (a, b) = (l.int(), r.int());
        // Big values cost more than one tick: keep the budget honest for numbers that explode.
        let cost = a.bits().max(b.bits()) / 4096;
        self.left = self.left.checked_sub(cost)?;
        Some(V::I(match op {
            Operator::Add => a + b,
            Operator::Sub => a - b,
            Operator::Mult => a * b,
            Operator::FloorDiv => floor_divmod(&a, &b)?.0,
            Operator::Mod => floor_divmod(&a, &b)?.1,
            Operator::BitXor => a ^ b,
            Operator::BitAnd => a & b,
            Operator::BitOr => a | b,
            _ => return None,
        }))
    }

    fn eval(&mut self, e: &Expr, env: &BTreeMap<String, V>) -> Option<V> {
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => Some(V::I(BigInt::from(i.as_u64()?))),
                _ => None,
            },
            Expr::BooleanLiteral(b) => Some(V::B(b.value)),
            Expr::Name(n) => env.get(n.id.as_str()).cloned(),
            Expr::BinOp(b) => {
                let l = self.eval(&b.left, env)?;
                let r = self.eval(&b.right, env)?;
                self.binop(b.op, l, r)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand, env)?;
                match u.op {
                    UnaryOp::Not => Some(V::B(!v.truth())),
                    UnaryOp::USub => Some(V::I(-v.int())),
                    UnaryOp::UAdd => Some(V::I(v.int())),
                    UnaryOp::Invert => None,
                }
            }
            Expr::BoolOp(b) => {
                let mut last = None;
                for x in &b.values {
                    let v = self.eval(x, env)?;
                    let t = v.truth();
                    last = Some(v);
                    if (b.op == BoolOp::And && !t) || (b.op == BoolOp::Or && t) {
                        break;
                    }
                }
                last
            }
            Expr::Compare(c) => {
                let mut left = self.eval(&c.left, env)?.int();
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    let r = self.eval(right, env)?.int();
                    let holds = match op {
                        CmpOp::Eq => left == r,
                        CmpOp::NotEq => left != r,
                        CmpOp::Lt => left < r,
                        CmpOp::LtE => left <= r,
                        CmpOp::Gt => left > r,
                        CmpOp::GtE => left >= r,
                        _ => return None,
                    };
                    if !holds {
                        return Some(V::B(false));
                    }
                    left = r;
                }
                Some(V::B(true))
            }
            Expr::Call(c) => {
                let Expr::Name(f) = &*c.func else { return None };
                let args = c.arguments.args.iter().map(|a| self.eval(a, env)).collect::<Option<Vec<_>>>()?;
                let mut kwargs = Vec::new();
                for k in c.arguments.keywords.iter() {
                    kwargs.push((k.arg.as_ref()?.to_string(), self.eval(&k.value, env)?));
                }
                self.call(f.id.as_str(), args, kwargs)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &str = "def check(x: int, a: int, b: int, target: int, num_steps: int) -> bool:\n    for step in range(num_steps):\n        if x % 2 == 0:\n            x = x // 2\n        else:\n            x = a * x + b\n    return x % 2 == target\n";

    fn cond(src: &str) -> Expr {
        let text = format!("if {src}:\n    pass\n");
        let p = Program::parse(&text).unwrap();
        let [Stmt::If(i)] = p.body() else { panic!() };
        (*i.test).clone()
    }

    #[test]
    fn runs_the_statement_example_and_xors() {
        let mut j = Judge::new(PATIENT);
        assert!(j.learn(CHECK));
        // 65 → 198 → 99 → 300: even, target 0.
        assert_eq!(j.decide(&cond("check(65, 3, 3, 0, num_steps=3)")), Some(true));
        assert_eq!(j.decide(&cond("check(65, 3, 3, 1, num_steps=3)")), Some(false));
        assert_eq!(j.decide(&cond("check(65, 3, 3, 0, num_steps=3) ^ check(65, 3, 3, 1, num_steps=3)")), Some(true));
        assert_eq!(j.decide(&cond("other(1)")), None);
        // Patience runs out on long runs.
        let short = Judge { budget: 20, ..j.clone() };
        assert_eq!(short.decide(&cond("check(7, 3, 1, 0, num_steps=50)")), None);
        assert!(j.decide(&cond("check(7, 3, 1, 0, num_steps=5000)")).is_some());
    }
}
