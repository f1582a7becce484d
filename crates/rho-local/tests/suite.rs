//! rho-local's one integration-test binary.

mod model_file;
