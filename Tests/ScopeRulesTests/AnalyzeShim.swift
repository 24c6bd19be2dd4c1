import ScopeAnalysis

// Seam for TruthTests: the analysis entry point. (Returned nil before wt-analysis was merged, which
// made every truth case skip.)
func truthAnalyze(path: String) throws -> AnalysisResult? {
    try AnalysisBuilder.analyze(path: path)
}
