import ScopeRules
