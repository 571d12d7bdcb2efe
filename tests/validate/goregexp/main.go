package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var p string
		if err := json.Unmarshal(in.Bytes(), &p); err != nil {
			panic(err)
		}
		if _, err := regexp.Compile(p); err != nil {
			fmt.Println(err.Error())
		} else {
			fmt.Println("ok")
		}
	}
}
