package training

import (
	"github.com/llpfc/llpfc/training/internal/testnet"
	"github.com/llpfc/llpfc/training/models"
)

func init() { models.RegisterModel("test-tiny", testnet.NewFDTinyNet) }
