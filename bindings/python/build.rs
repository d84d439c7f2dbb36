//! Exposes PyO3's interpreter cfgs (`Py_LIMITED_API`, `Py_3_10`, …) to this crate, so the view
//! can pick the fastest string access the target ABI allows.
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
