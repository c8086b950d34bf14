# (fragment reserved; filled by the work that owns it)
