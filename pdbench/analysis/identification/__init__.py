"""Strategy identification: which strategy an agent plays, from its stored moves (memory-one
fingerprints, the behavioural profile, SFEM and its candidates' prescriptions)."""
