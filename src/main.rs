fn main() -> std::process::ExitCode {
    archivist::cli::main()
}
