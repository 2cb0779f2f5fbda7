//! The SAT solver behind `lawgen analyze` (batsat, a MiniSat port in pure
//! Rust) with what the encoding needs on top: constants folded away,
//! hash-consed Tseitin definitions of `and`, `or` and `xor`, and solving
//! under assumptions so one encoding answers many queries.

use batsat::{lbool, BasicSolver, Lit, SolverInterface};
use std::collections::HashMap;
use std::ops::Not;

/// A Boolean value of the encoding: a constant, or a solver literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bv {
    Const(bool),
    Lit(Lit),
}

impl Bv {
    pub const FALSE: Bv = Bv::Const(false);
    pub const TRUE: Bv = Bv::Const(true);
}

impl std::ops::Not for Bv {
    type Output = Bv;

    fn not(self) -> Bv {
        match self {
            Bv::Const(b) => Bv::Const(!b),
            Bv::Lit(l) => Bv::Lit(!l),
        }
    }
}

/// The solver with a cache of definitions.
pub struct Sat {
    s: BasicSolver,
    /// `(is_or, sorted inputs)` → the literal defined as their and/or.
    cache: HashMap<(bool, Vec<Lit>), Lit>,
    clauses: usize,
    /// False once a clause made the problem unsatisfiable at level 0.
    ok: bool,
    /// When every solve gives up (`--max-seconds`).
    pub deadline: Option<std::time::Instant>,
}

impl Default for Sat {
    fn default() -> Self {
        Sat {
            s: BasicSolver::default(),
            cache: HashMap::new(),
            clauses: 0,
            ok: true,
            deadline: None,
        }
    }
}

impl Sat {
    /// A fresh variable; `prefer_false` makes the solver try `false` first
    /// (inputs, so witnesses come out small before they are minimized).
    pub fn var(&mut self, prefer_false: bool) -> Lit {
        let pol = if prefer_false {
            lbool::FALSE
        } else {
            lbool::UNDEF
        };
        Lit::new(self.s.new_var(pol, true), true)
    }

    /// Past [`Sat::deadline`]: every solve now gives up.
    pub fn past_deadline(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    pub fn num_vars(&self) -> usize {
        self.s.num_vars() as usize
    }

    pub fn num_clauses(&self) -> usize {
        self.clauses
    }

    /// Adds the clause `∨ xs` (constants folded).
    pub fn clause(&mut self, xs: &[Bv]) {
        let mut c = Vec::with_capacity(xs.len());
        for x in xs {
            match *x {
                Bv::Const(true) => return,
                Bv::Const(false) => {}
                Bv::Lit(l) => c.push(l),
            }
        }
        self.clauses += 1;
        if !self.s.add_clause_reuse(&mut c) {
            self.ok = false;
        }
    }

    /// `∧ xs`.
    pub fn and(&mut self, xs: &[Bv]) -> Bv {
        self.gate(xs, false)
    }

    /// `∨ xs`.
    pub fn or(&mut self, xs: &[Bv]) -> Bv {
        self.gate(xs, true)
    }

    /// `a ⊕ b`.
    pub fn xor(&mut self, a: Bv, b: Bv) -> Bv {
        match (a, b) {
            (Bv::Const(x), y) | (y, Bv::Const(x)) => {
                if x {
                    y.not()
                } else {
                    y
                }
            }
            (Bv::Lit(x), Bv::Lit(y)) => {
                if x == y {
                    return Bv::FALSE;
                }
                if x == !y {
                    return Bv::TRUE;
                }
                let v = self.var(false);
                let (x, y) = (Bv::Lit(x), Bv::Lit(y));
                let o = Bv::Lit(v);
                self.clause(&[o.not(), x, y]);
                self.clause(&[o.not(), x.not(), y.not()]);
                self.clause(&[o, x.not(), y]);
                self.clause(&[o, x, y.not()]);
                o
            }
        }
    }

    /// An and (`is_or` false) or or gate, defined once per set of inputs.
    fn gate(&mut self, xs: &[Bv], is_or: bool) -> Bv {
        // The absorbing constant of the gate, and the neutral one.
        let absorb = is_or;
        let mut lits: Vec<Lit> = Vec::with_capacity(xs.len());
        for x in xs {
            match *x {
                Bv::Const(b) if b == absorb => return Bv::Const(absorb),
                Bv::Const(_) => {}
                Bv::Lit(l) => lits.push(l),
            }
        }
        lits.sort_unstable_by_key(|l| l.idx());
        lits.dedup();
        // x and ¬x are adjacent after sorting by index.
        if lits.windows(2).any(|w| w[0] == !w[1]) {
            return Bv::Const(absorb);
        }
        match lits.len() {
            0 => return Bv::Const(!absorb),
            1 => return Bv::Lit(lits[0]),
            _ => {}
        }
        if let Some(&v) = self.cache.get(&(is_or, lits.clone())) {
            return Bv::Lit(v);
        }
        let v = self.var(false);
        let o = Bv::Lit(v);
        if is_or {
            // v → ∨ lits, each lit → v.
            let mut c: Vec<Bv> = vec![o.not()];
            c.extend(lits.iter().map(|&l| Bv::Lit(l)));
            self.clause(&c);
            for &l in &lits {
                self.clause(&[Bv::Lit(l).not(), o]);
            }
        } else {
            // v → each lit, ∧ lits → v.
            for &l in &lits {
                self.clause(&[o.not(), Bv::Lit(l)]);
            }
            let mut c: Vec<Bv> = vec![o];
            c.extend(lits.iter().map(|&l| Bv::Lit(l).not()));
            self.clause(&c);
        }
        self.cache.insert((is_or, lits), v);
        o
    }

    /// Solves under `assumptions`; `Some(true)` satisfiable (the model is
    /// read with [`Sat::value`]), `Some(false)` unsatisfiable, `None` if the
    /// solver gave up (without a deadline, that is a solver bug).
    pub fn solve(&mut self, assumptions: &[Bv]) -> Option<bool> {
        self.solve_until(assumptions, None)
    }

    /// [`Sat::solve`], giving up (`None`) after `deadline`.
    pub fn solve_until(
        &mut self,
        assumptions: &[Bv],
        deadline: Option<std::time::Instant>,
    ) -> Option<bool> {
        let deadline = match (deadline, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match deadline {
            Some(d) => self
                .s
                .cb_mut()
                .set_stop(move || std::time::Instant::now() >= d),
            None => self.s.cb_mut().set_stop(|| false),
        }
        if !self.ok {
            return Some(false);
        }
        let mut a = Vec::with_capacity(assumptions.len());
        for x in assumptions {
            match *x {
                Bv::Const(true) => {}
                Bv::Const(false) => return Some(false),
                Bv::Lit(l) => a.push(l),
            }
        }
        let r = self.s.solve_limited(&a);
        if r == lbool::TRUE {
            Some(true)
        } else if r == lbool::FALSE {
            Some(false)
        } else {
            None
        }
    }

    /// The value of `x` in the last model.
    pub fn value(&self, x: Bv) -> bool {
        match x {
            Bv::Const(b) => b,
            Bv::Lit(l) => self.s.value_lit(l) == lbool::TRUE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_fold_constants_and_share_definitions() {
        let mut s = Sat::default();
        let a = Bv::Lit(s.var(false));
        let b = Bv::Lit(s.var(false));
        assert_eq!(s.and(&[a, Bv::TRUE]), a);
        assert_eq!(s.and(&[a, Bv::FALSE]), Bv::FALSE);
        assert_eq!(s.or(&[a, a.not()]), Bv::TRUE);
        assert_eq!(s.and(&[]), Bv::TRUE);
        assert_eq!(s.or(&[]), Bv::FALSE);
        let ab = s.and(&[a, b]);
        assert_eq!(s.and(&[b, a]), ab);
        assert_eq!(s.solve(&[ab, a.not()]), Some(false));
        assert_eq!(s.solve(&[ab]), Some(true));
        assert!(s.value(a) && s.value(b));
        let x = s.xor(a, b);
        assert_eq!(s.solve(&[x, a]), Some(true));
        assert!(!s.value(b));
        assert_eq!(s.solve(&[x, a, b]), Some(false));
    }
}
