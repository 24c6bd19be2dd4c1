import ScopeCore
