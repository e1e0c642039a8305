package training

func init() { RegisterModel("test-tiny", newFDTinyNet) }
