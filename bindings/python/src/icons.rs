//! Icon safety (ICON-1..10): marshalling around `mcpgen::icons`. Strings are borrowed from
//! their `str` and immutable `bytes` from their object, and every check runs with the GIL
//! released.

use std::borrow::Cow;

use mcpgen::icons::{self, IconPolicy, IconSource, ImageType};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use crate::convert::{py_type, str_text, Failure};

/// The `policy=` argument: an `mcpgen.IconPolicy` (a frozen dataclass), default the core's.
fn policy_arg(py: Python<'_>, policy: Option<&Bound<'_, PyAny>>) -> Result<IconPolicy, Failure> {
    let Some(p) = policy else { return Ok(IconPolicy::default()) };
    if !p.is_instance(&py_type(py, "IconPolicy")?)? {
        let found = p.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(Failure::Python(PyTypeError::new_err(format!(
            "policy must be an mcpgen.IconPolicy, found `{found}`"
        ))));
    }
    Ok(IconPolicy::default()
        .allow_http(p.getattr("allow_http")?.extract()?)
        .allow_svg(p.getattr("allow_svg")?.extract()?)
        .allow_webp(p.getattr("allow_webp")?.extract()?)
        .allow_gif(p.getattr("allow_gif")?.extract()?)
        .max_bytes(p.getattr("max_bytes")?.extract()?)
        .trusted_origins(p.getattr("trusted_origins")?.extract()?))
}

/// Bytes of a `bytes` (borrowed), `bytearray` or `memoryview` (copied).
fn bytes_arg<'a>(data: &'a Bound<'_, PyAny>) -> Result<Cow<'a, [u8]>, Failure> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(b) = data.cast::<PyByteArray>() {
        return Ok(Cow::Owned(b.to_vec()));
    }
    if data.cast::<PyMemoryView>().is_ok() {
        let b = data.call_method0("tobytes")?;
        return Ok(Cow::Owned(b.cast::<PyBytes>().map_err(PyErr::from)?.as_bytes().to_vec()));
    }
    let found = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(Failure::Python(PyTypeError::new_err(format!("expected bytes, bytearray or memoryview, found `{found}`"))))
}

fn opt_text<'a>(s: Option<&'a Bound<'_, PyString>>) -> PyResult<Option<Cow<'a, str>>> {
    s.map(str_text).transpose()
}

/// ICON-3/1/7/8/9 (and ICON-6 with `server`): checks an `Icon.src` and its declared type.
#[pyfunction]
#[pyo3(signature = (src, mime_type=None, *, server=None, policy=None))]
pub fn check_icon<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyString>,
    mime_type: Option<&Bound<'py, PyString>>,
    server: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let run = || -> Result<IconSource, Failure> {
        let policy = policy_arg(py, policy)?;
        let src = str_text(src)?;
        let mime = opt_text(mime_type)?;
        let server = opt_text(server)?;
        let source = py.detach(|| {
            let source = policy.check_icon(&src, mime.as_deref())?;
            if let Some(server) = &server {
                policy.check_origin(&src, server)?;
            }
            Ok::<_, icons::IconError>(source)
        })?;
        Ok(source)
    };
    let info = py_type(py, "IconInfo")?;
    match run().map_err(|f| f.into_pyerr(py))? {
        IconSource::Data { image, .. } => info.call1(("data", image.mime(), py.None(), image == ImageType::Svg)),
        IconSource::Remote { origin, .. } => {
            // What a remote icon is becomes known from its bytes (`check_icon_bytes`); until then
            // its declared type (already checked against the policy) says whether it is SVG.
            let declared_svg = match mime_type {
                Some(m) => ImageType::from_mime(&str_text(m)?) == Some(ImageType::Svg),
                None => false,
            };
            info.call1(("remote", py.None(), origin, declared_svg))
        }
    }
}

/// ICON-7/8: checks icon bytes (from a `data:` URI or fetched); returns the canonical MIME type.
#[pyfunction]
#[pyo3(signature = (data, mime_type=None, *, policy=None))]
pub fn check_icon_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    mime_type: Option<&Bound<'_, PyString>>,
    policy: Option<&Bound<'_, PyAny>>,
) -> PyResult<&'static str> {
    let run = || -> Result<&'static str, Failure> {
        let policy = policy_arg(py, policy)?;
        let bytes = bytes_arg(data)?;
        let mime = opt_text(mime_type)?;
        let image = py.detach(|| policy.check_bytes(&bytes, mime.as_deref()))?;
        Ok(image.mime())
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// ICON-6: whether two URIs share an origin (scheme, host, port).
#[pyfunction]
pub fn same_origin(a: String, b: String) -> bool {
    icons::same_origin(&a, &b)
}

/// ICON-8: the image type of some bytes by their magic number, as a MIME type.
#[pyfunction]
pub fn sniff_image(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
    let bytes = bytes_arg(data).map_err(|f| f.into_pyerr(py))?;
    Ok(py.detach(|| icons::sniff(&bytes)).map(ImageType::mime))
}
